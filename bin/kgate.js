#!/usr/bin/env node
// Entry point of the `kgate` command. It runs the prebuilt bundle dist/cli.js (made by
// `npm run build`, which `npm ci` runs as `prepare`) while the bundle is newer than every file in
// src/, and the TypeScript sources through tsx otherwise. tsx is registered for every verb that may
// import TypeScript at run time (verifiers/<id>.ts); only the verbs in FAST_VERBS skip it.
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

const fast = bundleIsFresh();
if (!fast || !FAST_VERBS.has(verbOf(process.argv.slice(2)))) {
  const { register } = await import("tsx/esm/api");
  register();
}
const { main } = await import(fast ? bundle.href : "../src/cli.ts");
process.exitCode = await main(process.argv);
