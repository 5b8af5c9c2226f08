// Builds the trajectory viewer's browser bundle, src/view/assets/app.js, from src/view/app/ with
// esbuild (Preact + htm inlined, minified). The bundle is committed so that `kgate view` needs no
// build step; test/view-bundle.test.ts fails when it is older than its sources.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

export const VIEW_BUILD = {
  entryPoints: [path.join(root, "src/view/app/main.ts")],
  bundle: true,
  minify: true,
  format: "iife",
  target: "es2020",
  platform: "browser",
  legalComments: "none",
  write: false,
  logLevel: "silent",
};

export async function buildViewBundle() {
  const result = await esbuild.build(VIEW_BUILD);
  return `/* kgate view: built by scripts/build-view.mjs from src/view/app (Preact, htm: MIT) */\n${result.outputFiles[0].text}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const out = path.join(root, "src/view/assets/app.js");
  writeFileSync(out, await buildViewBundle());
  process.stderr.write(`wrote ${path.relative(root, out)}\n`);
}
