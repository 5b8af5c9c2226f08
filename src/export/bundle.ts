// The self-contained verifier of an exported task: two esbuild bundles run by node inside the
// container, tests/verify.mjs (kgate's verification) and tests/verifier.mjs (the task's verifier
// module, imported by verify.mjs as kgate imports verifiers/<id>.ts).
import path from "node:path";
import { bundleModule } from "../common/index.ts";
import { packagePath } from "../package-info.ts";
import type { LoadedTask } from "../task/index.ts";

/** Debian bookworm's nodejs package (what the exported Dockerfile installs) is Node 18. */
const BUNDLE_TARGET = "node18";

export interface VerifierBundle {
  /** tests/verify.mjs */
  verify: string;
  /** tests/verifier.mjs */
  verifier: string;
}

const MAIN = packagePath("src", "export", "verifier-main.ts");

function bundle(options: { entry?: string; stdin?: string }): Promise<string> {
  return bundleModule({
    entry: options.entry,
    stdin:
      options.stdin === undefined ? undefined : { contents: options.stdin, resolveDir: path.dirname(MAIN) },
    target: BUNDLE_TARGET,
  });
}

let verifyBundle: Promise<string> | undefined;

/** Bundles kgate's verification (once per process: it is the same for every task) and the task's verifier module. */
export async function buildVerifierBundle(task: LoadedTask): Promise<VerifierBundle> {
  verifyBundle ??= bundle({
    stdin: `import { main } from ${JSON.stringify(MAIN)};\nprocess.exitCode = await main(process.argv.slice(2));\n`,
  });
  const verify = await verifyBundle;
  const verifier = await bundle({ entry: task.verifierPath }).catch((err: Error) => {
    throw new Error(`${task.verifierPath}: cannot be bundled: ${err.message.split("\n")[0]}`);
  });
  return { verify, verifier };
}
