#!/usr/bin/env node
// Entry point of the `kgate` command. Every verb runs from the prebuilt bundle dist/cli.js (made by
// `npm run build`, which `npm ci` runs as `prepare`) while it is newer than every file in src/; the
// bundle registers tsx itself when it must import a project's TypeScript (verifiers/<id>.ts). A
// stale or missing bundle, or KGATE_NO_BUNDLE, runs the TypeScript sources through tsx, with both
// tsx hooks registered: task verifiers live in the user's project, which may be an ES module or a
// CommonJS package scope.
import { BUNDLE, bundleIsFresh } from "./bundle-fresh.js";

const fast = bundleIsFresh();
if (!fast) {
  const { register } = await import("tsx/esm/api");
  const { register: registerCommonJs } = await import("tsx/cjs/api");
  register();
  registerCommonJs();
}
const { main } = await import(fast ? BUNDLE.href : "../src/cli.ts");
process.exitCode = await main(process.argv);
