// Test support: a small real task ("markup") with a CSV, a keyed JSON and a rubric-judged text output.
import { writeFileSync } from "node:fs";
import path from "node:path";
import type { ProjectPaths } from "../../src/project.ts";
import { type LoadedTask, loadValidTask, scaffoldTask, verifyImportFrom } from "../../src/task/index.ts";
import type { OutputForVerification } from "../../src/verify/index.ts";
import { tempProject, writeJson } from "./project.ts";
import { fillTodos } from "./todos.ts";

export const MARKUP_INPUT = "item,quantity,price\nbolt,10,0.25\nnut,4,1.5\ngear,2,12\n";

/** Rows of output/result.csv under a markup rate, worked out by hand for the three items. */
export const HAND = {
  artefact: { bolt: 2.8, nut: 6.72, gear: 26.88, total: 36.4 },
  default: { bolt: 2.5, nut: 6, gear: 24, total: 32.5 },
  perturbed: { bolt: 2.875, nut: 6.9, gear: 27.6, total: 37.375 },
};

export function markupVerifierSource(verifyImport: string, extra = ""): string {
  return `import { defineVerifier } from "${verifyImport}";
interface C { rate: number }
export default defineVerifier<C>({
  conventions: {
    artefact: { rate: 0.12 },
    default: { rate: 0 },
    variants: { perturbed: { rate: 0.15 }, compressed: { rate: 0.12 } },
  },
  solve(files, c) {
    const lines = files["input.csv"]!.trim().split("\\n").slice(1).map((l) => l.split(","));
    const rows = lines.map(([item, q, p]) => ({ item: item!, value: Math.round(Number(q) * Number(p) * (1 + c.rate) * 1e4) / 1e4 }));
    const total = Math.round(rows.reduce((s, r) => s + r.value, 0) * 1e4) / 1e4;
    return {
      "output/result.csv": rows,
      "output/summary.json": { total, lines: rows },
      "output/memo.md": { total, items: rows.map((r) => r.item) },
    };
  },
  rubric: {
    "output/memo.md": {
      criteria: [
        { name: "states the total", check: (text: string, e: { total: number }) => text.includes(e.total.toFixed(2)) },
        {
          name: "names every item",
          check: (text: string, e: { items: string[] }) => {
            const missing = e.items.filter((i) => !text.includes(i));
            return { passed: missing.length === 0, detail: missing.length ? "missing: " + missing.join(", ") : undefined };
          },
        },
      ],
      render: (e: { total: number; items: string[] }) => "Items: " + e.items.join(", ") + ". Total " + e.total.toFixed(2) + ".\\n",
    },
  },
  ${extra}
});
`;
}

export interface MarkupProject {
  paths: ProjectPaths;
  load(): LoadedTask;
}

/**
 * The markup verifier with a weighted rubric that judges output/summary.json alone (total weight 2,
 * lines weight 1): the comparison with the reference adds no criterion for that output.
 */
export function judgedSummarySource(verifyImport: string): string {
  const rubric = `"output/summary.json": {
      judgesAlone: true,
      criteria: [
        { name: "total", weight: 2, check: (a: { total: number }, e: { total: number }) => Math.abs(a.total - e.total) <= 1e-4 },
        {
          name: "lines",
          check: (a: { lines: Array<{ item: string; value: number }> }, e: { lines: Array<{ item: string; value: number }> }) =>
            e.lines.every((l) => a.lines.some((m) => m.item === l.item && Math.abs(m.value - l.value) <= 1e-4)),
        },
      ],
    },
    "output/memo.md": {
      criteria: [`;
  return markupVerifierSource(verifyImport).replace('"output/memo.md": {\n      criteria: [', rubric);
}

/** A project with the markup task; `verifier` replaces the verifier source, `spec` edits task.json. */
export function markupProject(
  options: {
    verifier?: (verifyImport: string) => string;
    spec?: (spec: Record<string, unknown>) => void;
    scope?: "test" | "file";
  } = {},
): MarkupProject {
  const paths = tempProject(options.scope);
  scaffoldTask(paths, { id: "markup", gate: "convention" });
  const taskDir = path.join(paths.tasks, "markup");
  writeFileSync(path.join(taskDir, "environment", "input.csv"), MARKUP_INPUT);
  // The data generator reproduces that environment (kgate check reruns it).
  writeFileSync(
    path.join(taskDir, "generate.py"),
    `import sys, pathlib\npathlib.Path(sys.argv[1], "input.csv").write_text(${JSON.stringify(MARKUP_INPUT)})\n`,
  );
  writeFileSync(path.join(paths.artefacts, "markup", "variants", "compressed.md"), "rate 12%\n");
  const spec: Record<string, unknown> = {
    id: "markup",
    title: "Mark up every item",
    gate: "convention",
    domain: "testing",
    artefact: {
      path: "docs/internal/specification.md",
      description: "markup conventions",
      variants: { perturbed: { kind: "perturbed" }, compressed: { kind: "compressed" } },
    },
    outputs: [
      {
        path: "output/result.csv",
        format: "csv",
        columns: [
          { name: "item", type: "string" },
          { name: "value", type: "number" },
        ],
        key: ["item"],
      },
      {
        path: "output/summary.json",
        format: "json",
        schema: {
          type: "object",
          properties: {
            total: { type: "number" },
            lines: {
              type: "array",
              items: {
                type: "object",
                properties: { item: { type: "string" }, value: { type: "number" } },
                required: ["item", "value"],
                additionalProperties: false,
              },
            },
          },
          required: ["total", "lines"],
          additionalProperties: false,
        },
        compare: { keyedArrays: { "/lines": ["item"] } },
      },
      { path: "output/memo.md", format: "text" },
    ],
  };
  options.spec?.(spec);
  writeJson(path.join(taskDir, "task.json"), spec);
  const source = (options.verifier ?? markupVerifierSource)(verifyImportFrom(paths.verifiers));
  writeFileSync(path.join(paths.verifiers, "markup.ts"), source);
  fillTodos(paths, "markup");
  return { paths, load: () => loadValidTask(paths, "markup") };
}

type Values = { bolt: number; nut: number; gear: number; total: number };

/** Collected outputs for given values, as an agent following those conventions would write them. */
export function markupOutputs(v: Values, memo?: string): OutputForVerification[] {
  const csv = `item,value\nbolt,${v.bolt}\nnut,${v.nut}\ngear,${v.gear}\n`;
  const json = JSON.stringify({
    total: v.total,
    lines: [
      { item: "gear", value: v.gear },
      { item: "bolt", value: v.bolt },
      { item: "nut", value: v.nut },
    ],
  });
  const text = memo ?? `bolt, nut and gear cost ${v.total.toFixed(2)} in total.\n`;
  return [
    collected("output/result.csv", csv),
    collected("output/summary.json", json),
    collected("output/memo.md", text),
  ];
}

export function collected(outputPath: string, content: string | Buffer): OutputForVerification {
  return {
    path: outputPath,
    status: "collected",
    bytes: Buffer.isBuffer(content) ? content : Buffer.from(content),
  };
}

/** Replaces one output of a set. */
export function withOutput(outputs: OutputForVerification[], replacement: OutputForVerification) {
  return outputs.map((o) => (o.path === replacement.path ? replacement : o));
}
