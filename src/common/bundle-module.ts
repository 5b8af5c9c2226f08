// One ES module bundled by esbuild (a dependency of tsx, so always installed): what an exported task
// ships as its verifier, and what a verifier's worker thread imports instead of compiling TypeScript.
export interface BundleInput {
  /** The module to bundle, or source text resolved from `resolveDir`. */
  entry?: string;
  stdin?: { contents: string; resolveDir: string };
  /** esbuild's target, e.g. node18. */
  target: string;
  /** Ends the bundle with an inline source map (no sources' text): lines of a stack can be mapped back. */
  sourceMap?: boolean;
}

/** kgate's own run-time loaders, never needed by a bundled module (it is plain JavaScript). */
const NEVER_BUNDLED = ["tsx", "esbuild"];

/** The bundle's text: ESM for node, every import inlined, a require() for bundled CommonJS code. */
export async function bundleModule(input: BundleInput): Promise<string> {
  // esbuild is CommonJS: imported from kgate's own bundle its API is the namespace's default only.
  const esbuild = await import("esbuild").then(
    (m) => m.default,
    () => {
      throw new Error("bundling a verifier needs esbuild (npm install esbuild)");
    },
  );
  const result = await esbuild.build({
    ...(input.entry
      ? { entryPoints: [input.entry] }
      : { stdin: { contents: input.stdin!.contents, resolveDir: input.stdin!.resolveDir, loader: "ts" } }),
    bundle: true,
    write: false,
    format: "esm",
    platform: "node",
    target: input.target,
    legalComments: "none",
    external: NEVER_BUNDLED,
    logLevel: "silent",
    ...(input.sourceMap ? { sourcemap: "inline" as const, sourcesContent: false } : {}),
    banner: {
      js: 'import { createRequire as kgateRequire } from "node:module"; const require = kgateRequire(import.meta.url);',
    },
  });
  return result.outputFiles[0]!.text;
}
