// Rank statistics of the exam analysis: partial Spearman (ranks regressed on the controls, residuals
// correlated), the value-density overlap, the mean with its bootstrap interval (ranks, Pearson,
// Spearman and the bootstrap itself are src/common's).
import { z } from "zod";
import { averageRanks, bootstrap, mean, pearson, resample } from "../common/index.ts";
import type { Rng } from "./random.ts";

/** y minus its least-squares fit on an intercept and the columns (collinear columns are dropped). */
export function residuals(y: readonly number[], columns: ReadonlyArray<readonly number[]>): number[] {
  // modified Gram-Schmidt: an orthonormal basis of span(1, columns), then y minus its projection
  const basis: number[][] = [];
  for (const column of [y.map(() => 1), ...columns.map((c) => [...c])]) {
    const v = [...column];
    for (const q of basis) {
      const dot = v.reduce((s, vi, i) => s + vi * q[i]!, 0);
      v.forEach((_, i) => {
        v[i]! -= dot * q[i]!;
      });
    }
    const norm = Math.sqrt(v.reduce((s, vi) => s + vi * vi, 0));
    if (norm > 1e-9) basis.push(v.map((vi) => vi / norm));
  }
  const r = [...y];
  for (const q of basis) {
    const dot = r.reduce((s, ri, i) => s + ri * q[i]!, 0);
    r.forEach((_, i) => {
      r[i]! -= dot * q[i]!;
    });
  }
  return r;
}

/** Spearman of x and y controlling for the controls: ranks regressed on the controls' ranks, residuals correlated. */
export function partialSpearman(
  x: readonly number[],
  y: readonly number[],
  controls: ReadonlyArray<readonly number[]>,
): number | null {
  const rankedControls = controls.map(averageRanks);
  return pearson(residuals(averageRanks(x), rankedControls), residuals(averageRanks(y), rankedControls));
}

/**
 * |W intersect top-|W|| / |W|: how much of the work set is among the |W| units of highest value density
 * (points x reference accuracy / reference tokens); ties in density go to the earlier position.
 * null when W is empty.
 */
export function densityOverlap(work: readonly number[], density: readonly number[]): number | null {
  if (work.length === 0) return null;
  const top = new Set(
    density
      .map((d, i) => ({ d, i }))
      .sort((a, b) => b.d - a.d || a.i - b.i)
      .slice(0, work.length)
      .map((x) => x.i),
  );
  return work.filter((i) => top.has(i)).length / work.length;
}

/** Value density p * acc / c; a unit the reference solved at no token cost counts as infinitely dense. */
export function valueDensity(points: number, accuracy: number, tokens: number): number {
  if (tokens <= 0) return accuracy > 0 ? Number.POSITIVE_INFINITY : 0;
  return (points * accuracy) / tokens;
}

export const Estimate = z.object({
  mean: z.number(),
  low: z.number(),
  high: z.number(),
  /** How many values (exams) it rests on. */
  n: z.number().int(),
});
export type Estimate = z.infer<typeof Estimate>;

/** The mean of the values with a percentile bootstrap interval (resampling the values, e.g. exams). */
export function bootstrapMean(
  values: readonly number[],
  rng: Rng,
  resamples = 2000,
  level = 0.95,
): Estimate | null {
  if (values.length === 0) return null;
  const pick = (n: number) => rng.int(0, n - 1);
  const interval = bootstrap(() => mean(resample(values, pick)), resamples, level)!;
  return { mean: mean(values), low: interval.lo, high: interval.hi, n: values.length };
}
