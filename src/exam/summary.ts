// The exam report's numbers: per (N, scheme, order, prompt), the mean score, coverage, zero-token
// rate and each correlation over exams with bootstrap intervals; and effort share by position per N.
import { z } from "zod";
import { BudgetState } from "../cost/index.ts";
import { errorsByKind, FailureKind } from "../record/index.ts";
import { seededRng } from "./random.ts";
import { ExamProvenance, type ExamRecord, type ExamStats, finishedRecords } from "./record.ts";
import { bootstrapMean, Estimate } from "./stats.ts";

const STAT_NAMES = [
  "effortPosition",
  "effortValue",
  "effortDifficulty",
  "orderPosition",
  "partialEffortValue",
  "densityOverlap",
] as const satisfies ReadonlyArray<keyof ExamStats>;

export const GroupSummary = z.object({
  n: z.number().int(),
  scheme: z.string(),
  order: z.string(),
  prompt: z.string(),
  exams: z.number().int(),
  score: Estimate.nullable(),
  coverage: Estimate.nullable(),
  zeroRate: Estimate.nullable(),
  /** Each statistic averaged over the exams where it is defined, with its bootstrap interval. */
  stats: z.record(z.enum(STAT_NAMES), Estimate.nullable()),
});
export type GroupSummary = z.infer<typeof GroupSummary>;

export const ExamSummary = ExamProvenance.extend({
  planned: z.number().int(),
  finished: z.number().int(),
  failed: z.number().int(),
  /** The failed exams by their latest attempt's error kind (the closed taxonomy). */
  errors: z.partialRecord(FailureKind, z.number().int()).default({}),
  groups: z.array(GroupSummary),
  /** --max-cost: the ceiling, what was spent and reserved, and the exams it refused (they have no result). */
  budget: BudgetState.nullable().default(null),
  /** Per N: the mean share of the exam's attributed tokens at each position (1..N). */
  effortByPosition: z.array(z.object({ n: z.number().int(), share: z.array(z.number()) })),
});
export type ExamSummary = z.infer<typeof ExamSummary>;

export const BOOTSTRAP_RESAMPLES = 2000;

function estimate(values: Array<number | null>, ...seed: Array<string | number>) {
  const defined = values.filter((v): v is number => v !== null);
  return bootstrapMean(defined, seededRng("bootstrap", ...seed), BOOTSTRAP_RESAMPLES);
}

export function summariseExams(
  records: readonly ExamRecord[],
  planned: number,
  header: ExamProvenance,
): ExamSummary {
  // in key order: the means and bootstrap draws do not depend on the order the exams finished in
  const finished = [...finishedRecords(records).values()].sort((a, b) =>
    a.key < b.key ? -1 : a.key > b.key ? 1 : 0,
  );
  const failedKeys = new Set(records.filter((r) => r.error !== null).map((r) => r.key));
  for (const r of finished) failedKeys.delete(r.key);
  const lastError = new Map<string, ExamRecord["error"]>();
  for (const r of records) if (failedKeys.has(r.key)) lastError.set(r.key, r.error);
  const groups = new Map<string, ExamRecord[]>();
  for (const r of finished) {
    const key = `n${r.n}-${r.scheme}-${r.order}-${r.prompt}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  const summaries: GroupSummary[] = [...groups.entries()].map(([key, rs]) => ({
    n: rs[0]!.n,
    scheme: rs[0]!.scheme,
    order: rs[0]!.order,
    prompt: rs[0]!.prompt,
    exams: rs.length,
    score: estimate(
      rs.map((r) => r.score),
      key,
      "score",
    ),
    coverage: estimate(
      rs.map((r) => r.coverage),
      key,
      "coverage",
    ),
    zeroRate: estimate(
      rs.map((r) => r.zeroRate),
      key,
      "zeroRate",
    ),
    stats: Object.fromEntries(
      STAT_NAMES.map((name) => [
        name,
        estimate(
          rs.map((r) => r.stats[name]),
          key,
          name,
        ),
      ]),
    ) as GroupSummary["stats"],
  }));
  summaries.sort(
    (a, b) =>
      a.n - b.n ||
      a.scheme.localeCompare(b.scheme) ||
      a.order.localeCompare(b.order) ||
      a.prompt.localeCompare(b.prompt),
  );
  return {
    ...header,
    planned,
    finished: finished.length,
    failed: failedKeys.size,
    errors: errorsByKind([...lastError.values()]),
    groups: summaries,
    effortByPosition: effortByPosition(finished),
    budget: null,
  };
}

function effortByPosition(records: readonly ExamRecord[]): ExamSummary["effortByPosition"] {
  const sizes = [...new Set(records.map((r) => r.n))].sort((a, b) => a - b);
  return sizes.map((n) => {
    const shares = records
      .filter((r) => r.n === n)
      .map((r) => {
        const total = r.units.reduce((s, u) => s + u.tokens, 0);
        return total > 0 ? r.units.map((u) => u.tokens / total) : null;
      })
      .filter((s): s is number[] => s !== null);
    const share = Array.from({ length: n }, (_, i) =>
      shares.length === 0 ? 0 : shares.reduce((s, x) => s + x[i]!, 0) / shares.length,
    );
    return { n, share };
  });
}
