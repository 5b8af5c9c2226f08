// The self-contained verifier of an exported task: two esbuild bundles run by node inside the
// container, tests/verify.mjs (kgate's verification) and tests/verifier.mjs (the task's verifier
// module, imported by verify.mjs as kgate imports verifiers/<id>.ts).
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { LoadedTask } from "../task/index.ts";

/** Debian bookworm's nodejs package (what the exported Dockerfile installs) is Node 18. */
const BUNDLE_TARGET = "node18";

export interface VerifierBundle {
  /** tests/verify.mjs */
  verify: string;
  /** tests/verifier.mjs */
  verifier: string;
}

const MAIN = fileURLToPath(new URL("./verifier-main.ts", import.meta.url));

async function bundle(options: { entry?: string; stdin?: string }): Promise<string> {
  const esbuild = await import("esbuild").catch(() => {
    throw new Error("kgate export needs esbuild to bundle the verifier (npm install esbuild)");
  });
  const result = await esbuild.build({
    ...(options.entry
      ? { entryPoints: [options.entry] }
      : { stdin: { contents: options.stdin!, resolveDir: path.dirname(MAIN), loader: "ts" } }),
    bundle: true,
    write: false,
    format: "esm",
    platform: "node",
    target: BUNDLE_TARGET,
    legalComments: "none",
    logLevel: "silent",
    // Bundled CommonJS packages call require(); ES modules have none unless given one.
    banner: {
      js: 'import { createRequire as kgateRequire } from "node:module"; const require = kgateRequire(import.meta.url);',
    },
  });
  return result.outputFiles[0]!.text;
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
