// Test support: "memo", a small real task whose one output (output/memo.md) is free text graded by a
// code criterion (names every item) and a judge criterion (states the marked-up total, weight 2), with
// a `judge` configuration at the loopback model server. The markup data: totals worked out by hand
// in verify-fixture.ts (HAND): 36.40 under the artefact's 12%, 32.50 by default, 37.38 perturbed (15%).
import type { ProjectPaths } from "../../src/project.ts";
import type { LoadedTask } from "../../src/task/index.ts";
import { writeJudgeConfig } from "./judge-model.ts";
import { collected, markupProject } from "./verify-fixture.ts";

export const MEMO = "output/memo.md";
export const TOTALS = { artefact: "36.40", default: "32.50", perturbed: "37.38" } as const;

/** The judge criterion's text for a total (what the verifier below states). */
export const criterionFor = (total: string) =>
  `The memo states that the marked-up total of the order is ${total}.`;

export function memoVerifierSource(verifyImport: string): string {
  return `import { defineVerifier } from "${verifyImport}";
interface C { rate: number }
interface Memo { total: number; items: string[] }
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
    return { "${MEMO}": { total, items: rows.map((r) => r.item) } };
  },
  rubric: {
    "${MEMO}": {
      criteria: [
        { name: "names every item", check: (text: string, e: Memo) => e.items.every((i) => text.includes(i)) },
        {
          kind: "judge",
          name: "states the total",
          judge: "judge",
          weight: 2,
          criterion: (e: Memo) => "The memo states that the marked-up total of the order is " + e.total.toFixed(2) + ".",
        },
      ],
      render: (e: Memo) => "Items: " + e.items.join(", ") + ". Total " + e.total.toFixed(2) + ".\\n",
    },
  },
});
`;
}

export interface MemoProject {
  paths: ProjectPaths;
  load(): LoadedTask;
}

/** The memo task with its judge at the loopback server (key variable KGATE_TEST_JUDGE_KEY). */
export function memoProject(judge: { provider: "anthropic" | "openai"; baseUrl: string }): MemoProject {
  const project = markupProject({
    verifier: memoVerifierSource,
    spec: (spec) => {
      spec.outputs = [{ path: MEMO, format: "text" }];
    },
  });
  writeJudgeConfig(project.paths, judge);
  return project;
}

/** The memo as an agent would write it: the items and a total. */
export const memoOutputs = (total: string, extra = "") => [
  collected(MEMO, `Items: bolt, nut, gear. Total ${total}.\n${extra}`),
];
