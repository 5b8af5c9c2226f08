// The self-contained programs an export ships, bundled by esbuild for node: tests/verify.mjs of a
// Harbor folder (kgate's verification of a trial's outputs), kgate_verify.mjs beside exported rows
// (kgate's verification of a reply), and the task's verifier module (verifier.mjs), which both
// import as kgate imports verifiers/<id>.ts.
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

/** The programs: the Harbor verifier's, and the rows' node scorer. */
export const PROGRAMS = {
  harbor: packagePath("src", "export", "verifier-main.ts"),
  rows: packagePath("src", "export", "rows", "node-scorer-main.ts"),
} as const;

const programs = new Map<string, Promise<string>>();

/** A program whose `main(argv)` sets the exit code, bundled once per process. */
export function bundleProgram(main: string): Promise<string> {
  let bundled = programs.get(main);
  if (!bundled) {
    bundled = bundleModule({
      stdin: {
        contents: `import { main } from ${JSON.stringify(main)};\nprocess.exitCode = await main(process.argv.slice(2));\n`,
        resolveDir: path.dirname(main),
      },
      target: BUNDLE_TARGET,
    });
    programs.set(main, bundled);
  }
  return bundled;
}

/** The task's verifier module as one file. */
export function bundleVerifierModule(task: LoadedTask): Promise<string> {
  return bundleModule({ entry: task.verifierPath, target: BUNDLE_TARGET }).catch((err: Error) => {
    throw new Error(`${task.verifierPath}: cannot be bundled: ${err.message.split("\n")[0]}`);
  });
}

/** Bundles kgate's verification (once per process: it is the same for every task) and the task's verifier module. */
export async function buildVerifierBundle(task: LoadedTask): Promise<VerifierBundle> {
  const [verify, verifier] = await Promise.all([bundleProgram(PROGRAMS.harbor), bundleVerifierModule(task)]);
  return { verify, verifier };
}
