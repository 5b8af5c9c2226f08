// Which build-context files a Harbor Dockerfile copies into the image's final WORKDIR, and where:
// those become a kgate task's environment (paths relative to the work directory). The Dockerfile is
// read with dockerfile-ast (line continuations, ARG/ENV defaults expanded, flags apart); only the
// final image's stage counts (and the stages it is built FROM); COPY/ADD sources are globs
// (picomatch, Docker's rules: `*` stays within a folder), in the shell or the JSON form. A variable
// that has no default is an error naming the line, never a path like `/$W`.
import path from "node:path";
import { DockerfileParser, type Instruction } from "dockerfile-ast";
import picomatch from "picomatch";

export interface WorkdirCopy {
  /** Context path (POSIX, relative to environment/). */
  from: string;
  /** Path relative to the final WORKDIR. */
  to: string;
}

interface Copy {
  sources: string[];
  dest: string;
  workdir: string;
}

const VARIABLE = /\$(\{[A-Za-z_][A-Za-z0-9_]*|[A-Za-z_])/;

/** An instruction's arguments: the JSON form parsed as JSON, else the expanded shell words. */
function argumentsOf(i: Instruction): string[] {
  const jsonForm =
    "getJSONStrings" in i && (i as { getJSONStrings(): unknown[] }).getJSONStrings().length > 0;
  if (jsonForm) {
    const raw = i.getArgumentsContent() ?? "";
    try {
      const parsed: unknown = JSON.parse(raw.slice(raw.indexOf("[")));
      if (Array.isArray(parsed) && parsed.every((p) => typeof p === "string")) return parsed;
    } catch {
      // not valid JSON: Docker reads it in the shell form too
    }
  }
  return i.getExpandedArguments().map((a) => a.getValue());
}

function resolved(i: Instruction, value: string): string {
  if (VARIABLE.test(value)) {
    throw new Error(
      `Dockerfile line ${i.getRange().start.line + 1}: ${i.getKeyword()} ${value}: the variable has no ARG or ENV default here; give it one (ARG W=/app) or write the path`,
    );
  }
  return value;
}

/** The instructions that build the final image: its stage, after those of the stages it is FROM. */
function finalStage(dockerfile: string): Instruction[] {
  const parsed = DockerfileParser.parse(dockerfile);
  const stages: Array<{ name: string | null; base: string | null; body: Instruction[] }> = [];
  for (const i of parsed.getInstructions()) {
    if (i.getKeyword() === "FROM") {
      const from = parsed.getFROMs().find((f) => f.getRange().start.line === i.getRange().start.line);
      stages.push({
        name: from?.getBuildStage()?.toLowerCase() ?? null,
        base: from?.getImageName()?.toLowerCase() ?? null,
        body: [],
      });
    } else {
      // Instructions before any FROM (a fragment, as tests and snippets write them) form a stage.
      if (stages.length === 0) stages.push({ name: null, base: null, body: [] });
      stages.at(-1)!.body.push(i);
    }
  }
  const chain: Instruction[][] = [];
  let stage = stages.at(-1);
  const seen = new Set<number>();
  while (stage && !seen.has(stages.indexOf(stage))) {
    seen.add(stages.indexOf(stage));
    chain.unshift(stage.body);
    const index = stages.indexOf(stage);
    const base = stage.base;
    stage = [...stages.slice(0, index)].reverse().find((s) => s.name !== null && s.name === base);
  }
  return chain.flat();
}

function walk(dockerfile: string): { workdir: string; copies: Copy[] } {
  let workdir = "/";
  const copies: Copy[] = [];
  for (const i of finalStage(dockerfile)) {
    const word = i.getKeyword();
    if (word === "WORKDIR") {
      const dir = argumentsOf(i)[0];
      if (dir) workdir = path.posix.resolve(workdir, resolved(i, dir));
    }
    if (word !== "COPY" && word !== "ADD") continue;
    if ("getFromFlag" in i && (i as { getFromFlag(): unknown }).getFromFlag()) continue;
    const args = argumentsOf(i).filter((a) => !a.startsWith("--"));
    if (args.length < 2) continue;
    const dest = resolved(i, args.at(-1)!);
    copies.push({
      sources: args.slice(0, -1).map((s) => resolved(i, s)),
      // `.`, `..` and a trailing `/` name a folder: a file is copied into it.
      dest: path.posix.resolve(workdir, dest) + (/(^|\/)\.{0,2}$/.test(dest) ? "/" : ""),
      workdir,
    });
  }
  return { workdir, copies };
}

/** The image's final WORKDIR ("/" when the Dockerfile sets none). */
export function finalWorkdir(dockerfile: string): string {
  return walk(dockerfile).workdir;
}

/** Where one source puts a context file under `base`, or null when it does not copy it. */
function targetOf(source: string, file: string, base: string, intoFolder: boolean): string | null {
  const src = path.posix.normalize(source).replace(/^\.\/?|\/$/g, "");
  if (src === "" || src === ".") return path.posix.join(base, file);
  if (file.startsWith(`${src}/`)) return path.posix.join(base, file.slice(src.length + 1));
  const glob = picomatch.scan(src).isGlob;
  if (glob) {
    // A glob's match is copied as itself: a file into the folder, a matched folder's contents under its name.
    const parts = file.split("/");
    for (let n = 1; n <= parts.length; n++) {
      const head = parts.slice(0, n).join("/");
      if (!picomatch(src, { dot: true })(head)) continue;
      return n === parts.length
        ? path.posix.join(base, parts.at(-1)!)
        : path.posix.join(base, parts.slice(n).join("/"));
    }
    return null;
  }
  if (file !== src) return null;
  return intoFolder ? path.posix.join(base, path.posix.basename(file)) : base;
}

/** Each context file that a COPY/ADD of the final image puts under the final WORKDIR, with its path there. */
export function workdirCopies(dockerfile: string, contextFiles: readonly string[]): WorkdirCopy[] {
  const { workdir, copies } = walk(dockerfile);
  const found = new Map<string, string>();
  for (const { sources, dest } of copies) {
    const base = dest.replace(/\/$/, "");
    if (base !== workdir && !base.startsWith(`${workdir === "/" ? "" : workdir}/`)) continue;
    const intoFolder =
      dest.endsWith("/") || sources.length > 1 || sources.some((s) => picomatch.scan(s).isGlob);
    for (const source of sources) {
      for (const file of contextFiles) {
        const target = targetOf(source, file, base, intoFolder);
        if (target === null) continue;
        const relative = path.posix.relative(workdir, target);
        if (relative && !relative.startsWith("..")) found.set(file, relative);
      }
    }
  }
  return [...found].map(([from, to]) => ({ from, to }));
}
