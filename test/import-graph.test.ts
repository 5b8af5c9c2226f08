// The import graph of src/ between folders: no cycles, and every dependency in the documented
// direction (docs/architecture.md): commands -> protocols -> trial -> (agents, sandbox, verify) ->
// task -> model, with model and common (the shared helpers) importing nothing of kgate, every folder
// free to import common, and nothing importing commands.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const SRC = path.resolve(import.meta.dirname, "..", "src");
/** Files directly in src/ (project paths, errors, colours, package info); cli.ts is the entry point. */
const ROOT = "(root)";
/** The shared helpers (statistics, JSON-lines files, field paths): a leaf every folder may import. */
const COMMON = "common";
const BASE = [COMMON, "model", ROOT];
const PROTOCOL_BASE = ["trial", "agents", "sandbox", "verify", "task", "report", ...BASE];

/** What each folder may import (besides itself). */
const ALLOWED: Record<string, string[]> = {
  model: [],
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
  check: ["audit", ...PROTOCOL_BASE],
  // A calibration report carries the monitoring section, so calibrate reads monitor (never the reverse).
  calibrate: ["monitor", ...PROTOCOL_BASE],
  probes: ["calibrate", ...PROTOCOL_BASE],
  monitor: PROTOCOL_BASE,
  triage: ["calibrate", ...PROTOCOL_BASE],
  exam: ["calibrate", ...PROTOCOL_BASE],
  export: ["check", ...PROTOCOL_BASE],
  view: ["report", ...BASE],
  commands: [
    "calibrate",
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

/** Folder edges with one example import each (`from "..."` and `import("...")`). */
function folderEdges(): Map<string, string> {
  const edges = new Map<string, string>();
  for (const file of sourceFiles(SRC)) {
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(/(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+)"/g)) {
      const from = folderOf(file);
      const to = folderOf(path.resolve(path.dirname(file), m[1]!));
      if (from === to) continue;
      // The CLI entry point is the one file that imports the commands.
      if (path.basename(file) === "cli.ts" && from === ROOT && to === "commands") continue;
      const key = `${from} -> ${to}`;
      if (!edges.has(key)) edges.set(key, path.relative(SRC, file));
    }
  }
  return edges;
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
});
