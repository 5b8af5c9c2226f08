// Statistics shared by the protocols: the one interval type, the Wilson score interval, one
// percentile bootstrap (nearest-rank quantiles), average ranks, Pearson's r, Spearman's rho and the one-sided Fisher exact test.
import { z } from "zod";

/** A confidence interval: its lower and upper bound. */
export const Interval = z.object({ lo: z.number(), hi: z.number() });
export type Interval = z.infer<typeof Interval>;

/** The two-sided 95% normal quantile, z_{0.975}. */
export const Z95 = 1.959963984540054;

/**
 * Wilson score interval for `passes` successes in `runs` trials. With no runs nothing is known,
 * so the interval is [0, 1]. Bounds are clamped to [0, 1] against rounding at the extremes.
 */
export function wilson(passes: number, runs: number, z: number = Z95): Interval {
  if (!Number.isInteger(passes) || !Number.isInteger(runs) || passes < 0 || runs < 0 || passes > runs) {
    throw new RangeError(`wilson: need integers 0 <= passes <= runs, got ${passes}/${runs}`);
  }
  if (runs === 0) return { lo: 0, hi: 1 };
  const p = passes / runs;
  const z2 = z * z;
  const denominator = 1 + z2 / runs;
  const centre = (p + z2 / (2 * runs)) / denominator;
  const half = (z / denominator) * Math.sqrt((p * (1 - p)) / runs + z2 / (4 * runs * runs));
  return {
    lo: passes === 0 ? 0 : Math.max(0, centre - half),
    hi: passes === runs ? 1 : Math.min(1, centre + half),
  };
}

export const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;

/** A resample with replacement: as many items, each drawn by `pick(n)`, an index in [0, n). */
export function resample<T>(items: readonly T[], pick: (n: number) => number): T[] {
  return items.map(() => items[pick(items.length)]!);
}

/** The value at quantile q of sorted values: nearest rank, as the monitoring battery's percentile bootstrap. */
function quantile(sorted: readonly number[], q: number): number {
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[index]!;
}

/**
 * A percentile bootstrap interval: `statistic` of `resamples` resamples (the caller draws each with
 * its own seeded generator), the bounds at the (1 - level) / 2 and (1 + level) / 2 nearest-rank
 * quantiles. A resample whose statistic is undefined (null) is left out; null when every one is.
 */
export function bootstrap(statistic: () => number | null, resamples: number, level: number): Interval | null {
  const values: number[] = [];
  for (let i = 0; i < resamples; i++) {
    const value = statistic();
    if (value !== null) values.push(value);
  }
  if (values.length === 0) return null;
  values.sort((a, b) => a - b);
  const tail = (1 - level) / 2;
  return { lo: quantile(values, tail), hi: quantile(values, 1 - tail) };
}

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

/** Pearson's r; null for fewer than 3 pairs or when either side does not vary. */
export function pearson(x: readonly number[], y: readonly number[]): number | null {
  if (x.length !== y.length) throw new Error(`pearson: ${x.length} x values but ${y.length} y values`);
  if (x.length < 3) return null;
  const mx = mean(x);
  const my = mean(y);
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < x.length; i++) {
    const dx = x[i]! - mx;
    const dy = y[i]! - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  const scale = Math.sqrt(sxx * syy);
  if (scale < 1e-12) return null;
  return Math.max(-1, Math.min(1, sxy / scale));
}

/** Spearman's rho: Pearson's r of the average ranks. */
export function spearman(x: readonly number[], y: readonly number[]): number | null {
  return pearson(averageRanks(x), averageRanks(y));
}

const logChoose = (n: number, k: number) => {
  let s = 0;
  for (let i = 1; i <= k; i++) s += Math.log(n - k + i) - Math.log(i);
  return s;
};

/**
 * One-sided Fisher exact test that the first group's success rate exceeds the second's: the
 * probability, with both margins fixed, of k1 or more successes in the first group,
 * sum_{x >= k1} C(K, x) C(N - K, n1 - x) / C(N, n1), K = k1 + k2, N = n1 + n2.
 */
export function fisherExactGreater(k1: number, n1: number, k2: number, n2: number): number {
  for (const [k, n] of [
    [k1, n1],
    [k2, n2],
  ] as const) {
    if (!Number.isInteger(k) || !Number.isInteger(n) || k < 0 || n < 0 || k > n)
      throw new RangeError(`fisherExactGreater: need integers 0 <= k <= n, got ${k}/${n}`);
  }
  const K = k1 + k2;
  const N = n1 + n2;
  let p = 0;
  for (let x = k1; x <= Math.min(K, n1); x++) {
    p += Math.exp(logChoose(K, x) + logChoose(N - K, n1 - x) - logChoose(N, n1));
  }
  return Math.min(1, p);
}
