// Test support (vitest globalSetup of every project): rebuilds dist/ when a source is newer than the
// bundle, so the tests' `kgate` runs start from the bundle of the sources under test (bin/kgate.js
// would otherwise fall back to compiling the sources through tsx on every run, correct but slow).
import { spawnSync } from "node:child_process";
import path from "node:path";
import { bundleIsCurrent } from "../../bin/bundle-fresh.js";

const ROOT = path.resolve(import.meta.dirname, "../..");

export default function setup(): void {
  if (bundleIsCurrent()) return;
  const build = spawnSync(process.execPath, [path.join(ROOT, "scripts", "build.mjs")], { encoding: "utf8" });
  if (build.status !== 0) throw new Error(`npm run build failed before the tests: ${build.stderr}`);
}
