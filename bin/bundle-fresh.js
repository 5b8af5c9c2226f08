// Whether the prebuilt bundle dist/cli.js may serve `kgate`: it exists, KGATE_NO_BUNDLE is unset, and
// it is newer than every file in src/ (so an edited source is never shadowed by an old bundle).
import { existsSync, readdirSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const BUNDLE = new URL("../dist/cli.js", import.meta.url);
const sources = fileURLToPath(new URL("../src", import.meta.url));

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = `${dir}/${entry.name}`;
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(file) : statSync(file).mtimeMs);
  }
  return newest;
}

/** The bundle exists and is newer than every source file (the environment is not consulted). */
export function bundleIsCurrent() {
  const file = fileURLToPath(BUNDLE);
  return existsSync(file) && statSync(file).mtimeMs >= newestMtime(sources);
}

export function bundleIsFresh() {
  return !process.env.KGATE_NO_BUNDLE && bundleIsCurrent();
}
