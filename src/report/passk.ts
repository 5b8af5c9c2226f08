// The report's pass@k and pass^k section: per cell, beside its passes, runs and Wilson interval,
// the unbiased estimates for k = 1..n; per aggregate row their mean over cells. The Markdown, HTML
// and CSV writers render these rows; the numbers are the summary's (src/calibrate computes them).
import { aggregateLabel, tallyText } from "./format.ts";
import type { PassK, RunSummary } from "./schema.ts";

export const PASSK_NOTE =
  "pass@k: the chance that at least one of k trials, drawn without replacement from a cell's n valid trials, passes: " +
  "1 - C(n-c, k)/C(n, k) (Chen et al. 2021). pass^k: the chance that all k pass: C(c, k)/C(n, k) (Yao et al. 2024, tau-bench). " +
  "Both unbiased for k up to n; pass@1 = pass^1 = c/n. Aggregate rows: the mean over the spec's cells with k or more valid trials.";

export type PassKMeasure = "pass@k" | "pass^k";

export interface PassKRow {
  /** The task, or the aggregate row's label. */
  task: string;
  /** The cell's label, or the spec of an aggregate row. */
  cell: string;
  aggregate: boolean;
  /** "4/5 (80%) [38, 96]": passes/runs, rate and the Wilson interval. */
  tally: string;
  measure: PassKMeasure;
  /** Index k - 1; null where the cell has fewer than k valid trials. */
  values: Array<number | null>;
}

/** The largest k of any cell or aggregate row: the section's column count. */
export function passKWidth(s: Pick<RunSummary, "cells" | "aggregates">): number {
  return Math.max(0, ...s.cells.map((c) => c.passK.length), ...s.aggregates.map((a) => a.passK.length));
}

/** The values of one measure at k = 1..width, null past the curve's end. */
export function passKValues(
  curve: readonly PassK[],
  measure: PassKMeasure,
  width: number,
): Array<number | null> {
  return Array.from({ length: width }, (_, i) => {
    const p = curve[i];
    if (!p) return null;
    return measure === "pass@k" ? p.passAt : p.passHat;
  });
}

const MEASURES: readonly PassKMeasure[] = ["pass@k", "pass^k"];

/** Two rows (pass@k, pass^k) per cell, then two per aggregate row that has any valid trial. */
export function passKRows(s: RunSummary): PassKRow[] {
  const width = passKWidth(s);
  const rows: PassKRow[] = [];
  for (const c of s.cells) {
    const tally = tallyText(c.counts.pass, c.counts.runs, c.interval);
    for (const measure of MEASURES) {
      rows.push({
        task: c.task,
        cell: c.label,
        aggregate: false,
        tally,
        measure,
        values: passKValues(c.passK, measure, width),
      });
    }
  }
  for (const a of s.aggregates) {
    if (a.passK.length === 0) continue;
    const task = aggregateLabel(a.scope, a.scope === "all" ? s.tasks.length : s.totals.decisions.retain);
    const tally = tallyText(a.passes, a.runs, a.interval);
    for (const measure of MEASURES) {
      rows.push({
        task,
        cell: a.spec,
        aggregate: true,
        tally,
        measure,
        values: passKValues(a.passK, measure, width),
      });
    }
  }
  return rows;
}

/** A pass@k value as the tables show it: two decimals, "—" past the cell's n. */
export function passKText(value: number | null): string {
  return value === null ? "—" : value.toFixed(2);
}

/** The section's header: task, cell, the tally with its Wilson interval, measure, k = 1..width. */
export function passKHead(width: number): string[] {
  return [
    "task",
    "cell",
    "passes/runs (rate) [Wilson 95%]",
    "measure",
    ...Array.from({ length: width }, (_, i) => `k=${i + 1}`),
  ];
}
