// Rank statistics of the exam analysis: Spearman rho (ties by average ranks), partial Spearman (ranks
// regressed on the controls, residuals correlated), the value-density overlap, bootstrap intervals.
import { z } from "zod";
import type { Rng } from "./random.ts";

/** 1-based ranks; tied values share the average of the ranks they span. */
export function averageRanks(values: readonly number[]): number[] {
  const order = values.map((v, i) => ({ v, i })).sort((a, b) => a.v - b.v);
  const ranks = new Array<number>(values.length);
  for (let start = 0; start < order.length; ) {
    let end = start;
    while (end + 1 < order.length && order[end + 1]!.v === order[start]!.v) end++;
    const rank = (start + end) / 2 + 1;
    for (let k = start; k <= end; k++) ranks[order[k]!.i] = rank;
    start = end + 1;
  }
  return ranks;
}

const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;

/** Pearson correlation; null for fewer than 3 pairs or when either side does not vary. */
export function pearson(x: readonly number[], y: readonly number[]): number | null {
  if (x.length !== y.length) throw new Error("pearson: the two samples differ in length");
  if (x.length < 3) return null;
  const mx = mean(x);
  const my = mean(y);
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  x.forEach((xi, i) => {
    const dx = xi - mx;
    const dy = y[i]! - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  });
  const scale = Math.sqrt(sxx * syy);
  if (scale < 1e-12) return null;
  return Math.max(-1, Math.min(1, sxy / scale));
}

export function spearman(x: readonly number[], y: readonly number[]): number | null {
  return pearson(averageRanks(x), averageRanks(y));
}

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
  const means: number[] = [];
  for (let r = 0; r < resamples; r++) {
    let sum = 0;
    for (let k = 0; k < values.length; k++) sum += values[rng.int(0, values.length - 1)]!;
    means.push(sum / values.length);
  }
  means.sort((a, b) => a - b);
  const tail = (1 - level) / 2;
  const at = (q: number) => means[Math.min(resamples - 1, Math.max(0, Math.floor(q * resamples)))]!;
  return { mean: mean(values), low: at(tail), high: at(1 - tail), n: values.length };
}
