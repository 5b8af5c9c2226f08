// Where a verifier's own code threw: the first line of the error's stack in the verifier's file, as
// `verifiers/<id>.ts:<line>` (a line of the compiled verifier is mapped back through its source map).
import path from "node:path";
import { fileURLToPath } from "node:url";
import { compiledSourceMap } from "./compiled.ts";

/** A stack line's file, line and column (1-based), or null. */
function frameOf(line: string): { file: string; line: number; column: number } | null {
  const m = /\(?((?:file:\/\/)?[^\s()]+):(\d+):(\d+)\)?\s*$/.exec(line);
  if (!m) return null;
  const file = m[1]!.startsWith("file://") ? fileURLToPath(m[1]!) : m[1]!;
  return { file, line: Number(m[2]), column: Number(m[3]) };
}

const slashed = (file: string) => file.split(path.sep).join("/");

/**
 * `<file>:<line>` of the first frame of `err`'s stack (or its cause's) in the verifier `file`
 * (project-relative, e.g. `verifiers/demo.ts`); undefined when no frame is there.
 */
export function throwSite(err: unknown, file: string): string | undefined {
  for (let e = err; e instanceof Error; e = e.cause) {
    for (const line of (e.stack ?? "").split("\n").slice(1)) {
      const frame = frameOf(line);
      if (!frame) continue;
      if (slashed(frame.file).endsWith(`/${file}`)) return `${file}:${frame.line}`;
      const entry = compiledSourceMap(frame.file)?.findEntry(frame.line - 1, frame.column - 1);
      if (entry && "originalSource" in entry && slashed(entry.originalSource).endsWith(file)) {
        return `${file}:${entry.originalLine + 1}`;
      }
    }
  }
  return undefined;
}
