// The rubric section of a report: for every task whose verdicts were scored by rubric criteria, how
// often each criterion passed per cell, beside the reward (product: all passed) and the mean score.

import type { RunSummary } from "./schema.ts";
import { escapeXml as esc } from "./svg.ts";

export interface RubricColumn {
  /** The cell label (a column of Table 1, or a control). */
  cell: string;
  /** Verified trials counted (pass or fail, the current attempt of each). */
  verdicts: number;
  /** Per criterion, in the table's row order: how many of those verdicts passed it. */
  passed: number[];
  /** Verdicts with reward 1: every criterion passed. */
  rewarded: number;
  /** Mean of the verdicts' partial scores. */
  meanScore: number | null;
}

export interface RubricTable {
  task: string;
  criteria: Array<{ name: string; weight: number }>;
  columns: RubricColumn[];
}

/** One table per task whose trials carry weighted (rubric) criteria, one column per cell. */
export function rubricTables(s: RunSummary): RubricTable[] {
  const tables: RubricTable[] = [];
  for (const task of s.tasks) {
    const trials = s.trials.filter(
      (t) => t.task === task.id && !t.superseded && (t.outcome === "pass" || t.outcome === "fail"),
    );
    const criteria = new Map<string, number>();
    for (const t of trials) for (const c of t.criteria) if (c.weight !== null) criteria.set(c.name, c.weight);
    if (criteria.size === 0) continue;
    const names = [...criteria.keys()];
    const cells = [...new Set(s.cells.filter((c) => c.task === task.id).map((c) => c.label))];
    const columns = cells.map((cell): RubricColumn => {
      const mine = trials.filter((t) => t.cell === cell);
      const scores = mine.map((t) => t.score).filter((x): x is number => x !== null);
      return {
        cell,
        verdicts: mine.length,
        passed: names.map((n) => mine.filter((t) => t.criteria.some((c) => c.name === n && c.passed)).length),
        rewarded: mine.filter((t) => t.outcome === "pass").length,
        meanScore: scores.length === 0 ? null : scores.reduce((a, b) => a + b, 0) / scores.length,
      };
    });
    tables.push({
      task: task.id,
      criteria: names.map((name) => ({ name, weight: criteria.get(name)! })),
      columns,
    });
  }
  return tables;
}

export const RUBRIC_NOTE =
  "Verdicts passing each criterion per cell (current attempts, verified trials). Reward 1 needs every " +
  "criterion (the product); the score is the criteria's mean by weight.";

const ratio = (n: number, of: number) => `${n}/${of}`;
const mean = (x: number | null) => (x === null ? "—" : x.toFixed(2));

/** The rows of one table as text cells: criterion, weight, one per column; then reward and mean score. */
export function rubricRows(t: RubricTable): string[][] {
  return [
    ...t.criteria.map((c, i) => [
      c.name,
      String(c.weight),
      ...t.columns.map((col) => ratio(col.passed[i]!, col.verdicts)),
    ]),
    [
      "reward 1 (every criterion: the product)",
      "",
      ...t.columns.map((col) => ratio(col.rewarded, col.verdicts)),
    ],
    ["mean score (by weight)", "", ...t.columns.map((col) => mean(col.meanScore))],
  ];
}

export function rubricHtml(tables: RubricTable[]): string {
  return tables
    .map((t) => {
      const head = [`${t.task}: criterion`, "weight", ...t.columns.map((c) => c.cell)];
      const rows = rubricRows(t).map(
        (cells) =>
          `<tr>${cells.map((c, i) => `<td${i > 0 ? ' class="num"' : ""}>${esc(c)}</td>`).join("")}</tr>`,
      );
      return `<table class="rubric" data-task="${esc(t.task)}"><thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join("")}</tr></thead><tbody>${rows.join("")}</tbody></table>`;
    })
    .join("\n");
}
