#!/usr/bin/env node
// Entry point of the `kgate` command. The verbs in FAST_VERBS run from the prebuilt bundle
// dist/cli.js (made by `npm run build`, which `npm ci` runs as `prepare`) while it is newer than
// every file in src/. Every other verb, or a stale or missing bundle, runs the TypeScript sources
// through tsx: those verbs import TypeScript at run time (verifiers/<id>.ts) and find files next
// to their sources (the sandbox image). Both tsx hooks are registered: task verifiers live in the
// user's project, which may be an ES module or a CommonJS package scope.
import { existsSync, readdirSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";

const FAST_VERBS = new Set([undefined, "help", "audit", "hook"]);
const bundle = new URL("../dist/cli.js", import.meta.url);
const sources = fileURLToPath(new URL("../src", import.meta.url));

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = `${dir}/${entry.name}`;
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(file) : statSync(file).mtimeMs);
  }
  return newest;
}

function bundleIsFresh() {
  if (process.env.KGATE_NO_BUNDLE) return false;
  const file = fileURLToPath(bundle);
  return existsSync(file) && statSync(file).mtimeMs >= newestMtime(sources);
}

function verbOf(args) {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--root") i++;
    else if (!args[i].startsWith("-")) return args[i];
  }
  return undefined;
}

const fast = FAST_VERBS.has(verbOf(process.argv.slice(2))) && bundleIsFresh();
if (!fast) {
  const { register } = await import("tsx/esm/api");
  const { register: registerCommonJs } = await import("tsx/cjs/api");
  register();
  registerCommonJs();
}
const { main } = await import(fast ? bundle.href : "../src/cli.ts");
process.exitCode = await main(process.argv);
