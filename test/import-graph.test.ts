// The import graph of src/ between folders: no cycles, and every dependency in the documented
// direction (docs/architecture.md): commands -> protocols -> trial -> (agents, sandbox, verify) ->
// task -> record, with record and common (the shared helpers) importing nothing of kgate, every folder
// free to import common, and nothing importing commands. Inside a folder (its subfolders included),
// no circle between files either: a circle there is a type in the wrong file. Across folders, an
// import goes through the folder's public face, its index.ts (cli.ts's lazily imported verb modules
// excepted: commands has no index). Only src/ is held to it: tests and benchmarks may import a
// folder's internals (a Docker test's DockerSandbox, a fixture's builder), as CONTRIBUTING.md says.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const SRC = path.resolve(import.meta.dirname, "..", "src");
/** Files directly in src/ (project paths, errors, colours, package info); cli.ts is the entry point. */
const ROOT = "(root)";
/** The shared helpers (statistics, JSON-lines files, field paths): a leaf every folder may import. */
const COMMON = "common";
const BASE = [COMMON, "record", ROOT];
const PROTOCOL_BASE = ["trial", "agents", "sandbox", "verify", "task", "report", ...BASE];

/** What each folder may import (besides itself). */
const ALLOWED: Record<string, string[]> = {
  record: [],
  [ROOT]: [],
  [COMMON]: [],
  task: BASE,
  audit: ["task", ...BASE],
  verify: ["task", ...BASE],
  sandbox: ["task", ...BASE],
  agents: ["sandbox", "task", ...BASE],
  // Table 1 as CSV quotes fields as the verifier reads them.
  report: ["verify", ...BASE],
  trial: ["agents", "sandbox", "verify", "task", ...BASE],
  // The cost of units (worst case, ceiling, estimate), shared by the protocol verbs.
  cost: ["trial", "agents", ...BASE],
  check: ["audit", ...PROTOCOL_BASE],
  // A calibration report carries the monitoring section, so calibrate reads monitor (never the reverse).
  calibrate: ["monitor", "cost", ...PROTOCOL_BASE],
  probes: ["calibrate", "cost", ...PROTOCOL_BASE],
  monitor: PROTOCOL_BASE,
  triage: ["calibrate", "cost", ...PROTOCOL_BASE],
  exam: ["calibrate", "cost", ...PROTOCOL_BASE],
  // Exported rows state the prospective choice's words and payoffs and read a reply's choice.
  export: ["check", "monitor", ...PROTOCOL_BASE],
  view: ["report", ...BASE],
  // The verbs' registrations: commander and the run settings only, nothing of a verb's behaviour.
  cli: [ROOT, COMMON],
  // The library's API (package export "kgate") drives the same machinery as the commands.
  api: ["calibrate", "check", "audit", "monitor", ...PROTOCOL_BASE],
  // The verbs parse argv and print; the work of run, calibrate, audit, check and report goes through api.
  commands: [
    "api",
    "calibrate",
    "cost",
    "check",
    "audit",
    "probes",
    "monitor",
    "triage",
    "exam",
    "export",
    "view",
    ...PROTOCOL_BASE,
  ],
};

function folderOf(file: string): string {
  const parts = path.relative(SRC, file).split(path.sep);
  return parts.length === 1 ? ROOT : parts[0]!;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) return sourceFiles(file);
    return /\.(ts|mjs)$/.test(name) ? [file] : [];
  });
}

/** Every relative import of src/ (`from "..."`, type imports and re-exports too, and `import("...")`). */
function imports(): Array<{ file: string; target: string }> {
  return sourceFiles(SRC).flatMap((file) =>
    [...readFileSync(file, "utf8").matchAll(/(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+)"/g)].map((m) => ({
      file,
      target: path.resolve(path.dirname(file), m[1]!),
    })),
  );
}

/** Folder edges with one example import each. */
function folderEdges(): Map<string, string> {
  const edges = new Map<string, string>();
  for (const { file, target } of imports()) {
    const from = folderOf(file);
    const to = folderOf(target);
    if (from === to) continue;
    // The CLI entry point is the one file that imports the commands (lazily) and the registrations.
    if (path.basename(file) === "cli.ts" && from === ROOT && (to === "commands" || to === "cli")) continue;
    const key = `${from} -> ${to}`;
    if (!edges.has(key)) edges.set(key, path.relative(SRC, file));
  }
  return edges;
}

/**
 * A folder's second, light face beside index.ts, for a start-up path that must not load the rest of
 * the folder: `kgate audit` (the pre-commit hook) reads tasks without loading the task schemas; the
 * CLI's registrations parse the run settings (zod/mini) without common's classic-zod statistics; the
 * API's audit is that same hook's work, without the rest of the API (calibration, trials, task schemas).
 */
const LIGHT_FACES = new Set(["task/light.ts", "common/run-settings.ts", "api/audit.ts"]);

/** Where a cross-folder import may land: the folder's index.ts (or light face), or a file directly in src/. */
function throughIndex(file: string, target: string): boolean {
  const from = folderOf(file);
  const to = folderOf(target);
  if (from === to || to === ROOT) return true;
  // The CLI entry point lazily imports one module per verb.
  if (path.basename(file) === "cli.ts" && from === ROOT && to === "commands") return true;
  const inFolder = path.relative(SRC, target);
  return path.relative(path.join(SRC, to), target) === "index.ts" || LIGHT_FACES.has(inFolder);
}

/** Cross-folder imports that bypass the target folder's index.ts, paths relative to src/. */
function bypasses(edges: ReadonlyArray<{ file: string; target: string }>): string[] {
  return edges
    .filter(({ file, target }) => !throughIndex(file, target))
    .map(({ file, target }) => `${path.relative(SRC, file)} -> ${path.relative(SRC, target)}`);
}

/** File edges inside one folder (`sandbox/provider.ts -> sandbox/types.ts`), paths relative to src/. */
function fileEdges(): Set<string> {
  const edges = new Set<string>();
  for (const { file, target } of imports()) {
    if (folderOf(file) !== folderOf(target)) continue;
    edges.add(`${path.relative(SRC, file)} -> ${path.relative(SRC, target)}`);
  }
  return edges;
}

/**
 * The circles of a graph, one per strongly connected component of two or more nodes (Tarjan), each
 * written as a path from its first node (in sort order) back to it: `a -> b -> a`.
 */
function circles(edges: Iterable<string>): string[] {
  const next = new Map<string, string[]>();
  for (const e of edges) {
    const [a, b] = e.split(" -> ") as [string, string];
    next.set(a, [...(next.get(a) ?? []), b]);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const components: string[][] = [];
  const connect = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      component.push(w);
    } while (w !== v);
    if (component.length > 1) components.push(component.sort());
  };
  for (const v of [...next.keys()].sort()) if (!index.has(v)) connect(v);
  return components.sort().map((component) => {
    // a shortest way round from the first node, inside the component
    const start = component[0]!;
    const cameFrom = new Map<string, string>();
    const queue = [start];
    while (queue.length > 0) {
      const v = queue.shift()!;
      for (const w of next.get(v) ?? []) {
        if (!component.includes(w) || cameFrom.has(w)) continue;
        cameFrom.set(w, v);
        queue.push(w);
      }
    }
    const way = [start];
    for (let v = cameFrom.get(start)!; v !== start; v = cameFrom.get(v)!) way.unshift(v);
    return [start, ...way].join(" -> ");
  });
}

function cycles(edges: Iterable<string>): string[][] {
  const next = new Map<string, string[]>();
  for (const e of edges) {
    const [a, b] = e.split(" -> ") as [string, string];
    next.set(a, [...(next.get(a) ?? []), b]);
  }
  const found: string[][] = [];
  const visit = (node: string, trail: string[]) => {
    const at = trail.indexOf(node);
    if (at >= 0) {
      found.push([...trail.slice(at), node]);
      return;
    }
    for (const n of next.get(node) ?? []) visit(n, [...trail, node]);
  };
  for (const start of next.keys()) visit(start, []);
  return found;
}

describe("the import graph of src/", () => {
  const edges = folderEdges();

  it("has no cycle between folders", () => {
    expect(cycles(edges.keys())).toEqual([]);
  });

  it("points only in the documented direction", () => {
    const wrong = [...edges].filter(([edge]) => {
      const [from, to] = edge.split(" -> ") as [string, string];
      return !(ALLOWED[from] ?? []).includes(to);
    });
    expect(wrong.map(([edge, example]) => `${edge} (e.g. ${example})`)).toEqual([]);
  });

  it("knows every folder, and the checker would catch a cycle", () => {
    const folders = new Set([...edges.keys()].flatMap((e) => e.split(" -> ")));
    expect([...folders].filter((f) => !(f in ALLOWED))).toEqual([]);
    expect(cycles(["a -> b", "b -> c", "c -> a"])).toContainEqual(["a", "b", "c", "a"]);
  });

  it("reaches another folder only through its index.ts", () => {
    expect(bypasses(imports())).toEqual([]);
  });

  it("the index checker names an import past a folder's index.ts, and lets the others pass", () => {
    const at = (p: string) => path.join(SRC, p);
    expect(
      bypasses([
        { file: at("agents/loop.ts"), target: at("sandbox/types.ts") },
        { file: at("agents/installed/agent.ts"), target: at("sandbox/index.ts") },
        { file: at("agents/loop.ts"), target: at("agents/providers/index.ts") },
        { file: at("probes/models.ts"), target: at("agents/providers/index.ts") },
        { file: at("trial/engine.ts"), target: at("errors.ts") },
        { file: at("cli.ts"), target: at("commands/run.ts") },
      ]),
    ).toEqual(["agents/loop.ts -> sandbox/types.ts", "probes/models.ts -> agents/providers/index.ts"]);
  });

  it("has no circle between files inside a folder", () => {
    expect(circles(fileEdges())).toEqual([]);
  });

  it("the file checker names the files of each circle and nothing else", () => {
    const edges = [
      "s/a.ts -> s/b.ts",
      "s/b.ts -> s/c.ts",
      "s/c.ts -> s/a.ts",
      "s/c.ts -> s/d.ts",
      "t/x.ts -> t/y.ts",
    ];
    expect(circles(edges)).toEqual(["s/a.ts -> s/b.ts -> s/c.ts -> s/a.ts"]);
    expect(circles(["p/one.ts -> p/two.ts", "p/two.ts -> p/one.ts"])).toEqual([
      "p/one.ts -> p/two.ts -> p/one.ts",
    ]);
  });
});
