// Which build-context files a Harbor Dockerfile copies into the image's final WORKDIR, and where:
// those become a kgate task's environment (paths relative to the work directory). Only plain
// `COPY`/`ADD` of context paths is read; anything else is left to the curator (and said so).
import path from "node:path";

export interface WorkdirCopy {
  /** Context path (POSIX, relative to environment/). */
  from: string;
  /** Path relative to the final WORKDIR. */
  to: string;
}

function instructions(text: string): string[][] {
  const joined = text.replace(/\\\r?\n/g, " ");
  return joined
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith("#"))
    .map((line) => line.split(/\s+/));
}

/** The image's final WORKDIR ("/" when the Dockerfile sets none). */
export function finalWorkdir(dockerfile: string): string {
  let workdir = "/";
  for (const [keyword = "", ...args] of instructions(dockerfile)) {
    if (keyword.toUpperCase() === "WORKDIR" && args[0]) workdir = path.posix.resolve(workdir, args[0]);
  }
  return workdir;
}

/** Each context file that a COPY/ADD puts under the final WORKDIR, with its path there. */
export function workdirCopies(dockerfile: string, contextFiles: readonly string[]): WorkdirCopy[] {
  let workdir = "/";
  const copies: Array<{ sources: string[]; dest: string }> = [];
  for (const [keyword = "", ...args] of instructions(dockerfile)) {
    const word = keyword.toUpperCase();
    if (word === "WORKDIR" && args[0]) workdir = path.posix.resolve(workdir, args[0]);
    if ((word === "COPY" || word === "ADD") && !args.some((a) => a.startsWith("--from"))) {
      const plain = args.filter((a) => !a.startsWith("--"));
      if (plain.length < 2 || plain.some((a) => a.startsWith("["))) continue;
      const dest = plain.at(-1)!;
      copies.push({
        sources: plain.slice(0, -1),
        dest: path.posix.resolve(workdir, dest) + (dest.endsWith("/") ? "/" : ""),
      });
    }
  }
  const found = new Map<string, string>();
  for (const { sources, dest } of copies) {
    const base = dest.replace(/\/$/, "");
    if (base !== workdir && !base.startsWith(`${workdir === "/" ? "" : workdir}/`)) continue;
    for (const source of sources) {
      const src = path.posix.normalize(source).replace(/^\.\/?|\/$/g, "");
      for (const file of contextFiles) {
        const inside = src === "" ? file : file.startsWith(`${src}/`) ? file.slice(src.length + 1) : null;
        let target: string | null = null;
        if (inside !== null) target = path.posix.join(base, inside);
        else if (file === src)
          target =
            dest.endsWith("/") || sources.length > 1
              ? path.posix.join(base, path.posix.basename(file))
              : base;
        if (target === null) continue;
        const relative = path.posix.relative(workdir, target);
        if (relative && !relative.startsWith("..")) found.set(file, relative);
      }
    }
  }
  return [...found].map(([from, to]) => ({ from, to }));
}
