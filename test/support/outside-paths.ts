// Test support: finds the places where a source file names a path outside the repository (an
// absolute path of this machine, the shared folder beside the checkout, or a path relative to the
// file's own folder that climbs above the repository root). Used by test/repo-standalone.test.ts.
import path from "node:path";

export interface OutsidePath {
  line: number;
  text: string;
}

/**
 * Absolute paths of a host, not of a container: the folders work, mnt, srv, media and Users at the
 * root, and any home folder but the sandbox's (agent). A path is absolute when nothing of a name or
 * another path precedes it.
 */
const ABSOLUTE = /(?<![\w.~/$-])\/(?:work|mnt|srv|media|Users|home\/(?!agent\b)[\w.-]+)(?=[/"'`\s]|$)/g;
/** The shared folder that lies beside a checkout on the project's machines. */
const SHARED = /(?:^|[^\w.])(?:\.\.\/)+shared(?:\/|\b)/g;
/** The file's own folder followed by string literals: path.resolve(import.meta.dirname, "..", "x"). */
const FROM_OWN_FOLDER =
  /(?:import\.meta\.dirname|path\.dirname\(fileURLToPath\(import\.meta\.url\)\))((?:\s*,\s*"[^"]*")+)/g;
const NEW_URL = /new URL\(\s*"([^"]+)"\s*,\s*import\.meta\.url\s*\)/g;

/** The paths outside the repository named in `text`, the content of `file` (relative to the root). */
export function outsidePaths(file: string, text: string): OutsidePath[] {
  const found: { index: number; text: string }[] = [];
  for (const re of [ABSOLUTE, SHARED]) {
    for (const m of text.matchAll(re)) found.push({ index: m.index, text: m[0].trim() });
  }
  const own = path.posix.dirname(file);
  const escapes = (parts: string[]) => path.posix.normalize(path.posix.join(own, ...parts)).startsWith("../");
  for (const m of text.matchAll(FROM_OWN_FOLDER)) {
    const parts = [...m[1]!.matchAll(/"([^"]*)"/g)].map((p) => p[1]!);
    if (escapes(parts)) found.push({ index: m.index, text: m[0] });
  }
  for (const m of text.matchAll(NEW_URL)) if (escapes([m[1]!])) found.push({ index: m.index, text: m[0] });
  // One finding per line: a line may match two rules (a relative path up to the shared folder).
  const byLine = new Map<number, string>();
  for (const f of found.sort((a, b) => a.index - b.index)) {
    const line = text.slice(0, f.index).split("\n").length;
    if (!byLine.has(line)) byLine.set(line, f.text);
  }
  return [...byLine].map(([line, t]) => ({ line, text: t }));
}
