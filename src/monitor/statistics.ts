// Statistics of the monitoring analysis: a seeded stratified bootstrap interval of the withdraw
// delta, Pearson and Spearman correlation, split-half reliability with the Spearman-Brown correction.
import { type MonitoredResponse, summariseMonitoring } from "./metrics.ts";

/** mulberry32: a small seeded generator, so that intervals are reproducible from the seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Interval {
  low: number;
  high: number;
  level: number;
  resamples: number;
}

export interface BootstrapOptions {
  resamples?: number;
  level?: number;
  seed?: number;
}

const resample = <T>(items: readonly T[], random: () => number): T[] =>
  items.map(() => items[Math.floor(random() * items.length)]!);

/** The value at quantile q of sorted values (nearest rank, as the battery's percentile bootstrap). */
function quantile(sorted: readonly number[], q: number): number {
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[index]!;
}

/**
 * Percentile bootstrap interval of the withdraw delta, resampling correct and incorrect responses
 * apart (so each resample keeps both groups' sizes and its delta stays defined). Null when the
 * delta itself is undefined.
 */
export function bootstrapDelta(
  responses: readonly MonitoredResponse[],
  options: BootstrapOptions = {},
): Interval | null {
  const resamples = options.resamples ?? 2000;
  const level = options.level ?? 0.95;
  const random = seededRandom(options.seed ?? 42);
  const probed = responses.filter((r) => r.keep !== null);
  const correct = probed.filter((r) => r.correct);
  const incorrect = probed.filter((r) => !r.correct);
  if (correct.length === 0 || incorrect.length === 0) return null;
  const deltas: number[] = [];
  for (let i = 0; i < resamples; i++) {
    const delta = summariseMonitoring([
      ...resample(correct, random),
      ...resample(incorrect, random),
    ]).withdrawDelta;
    if (delta !== null) deltas.push(delta);
  }
  deltas.sort((a, b) => a - b);
  const tail = (1 - level) / 2;
  return { low: quantile(deltas, tail), high: quantile(deltas, 1 - tail), level, resamples };
}

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** Pearson's r; null with fewer than 3 pairs or when either side has no variance. */
export function pearson(xs: readonly number[], ys: readonly number[]): number | null {
  if (xs.length !== ys.length) throw new Error(`pearson: ${xs.length} x values but ${ys.length} y values`);
  if (xs.length < 3) return null;
  const mx = mean(xs);
  const my = mean(ys);
  let num = 0;
  let dx2 = 0;
  let dy2 = 0;
  for (let i = 0; i < xs.length; i++) {
    const dx = xs[i]! - mx;
    const dy = ys[i]! - my;
    num += dx * dy;
    dx2 += dx * dx;
    dy2 += dy * dy;
  }
  return dx2 === 0 || dy2 === 0 ? null : num / Math.sqrt(dx2 * dy2);
}

/** Ranks from 1, ties given the mean of the ranks they span. */
export function ranks(xs: readonly number[]): number[] {
  const order = xs.map((x, i) => ({ x, i })).sort((a, b) => a.x - b.x);
  const result = new Array<number>(xs.length);
  for (let start = 0; start < order.length; ) {
    let end = start;
    while (end + 1 < order.length && order[end + 1]!.x === order[start]!.x) end++;
    const rank = (start + end) / 2 + 1;
    for (let k = start; k <= end; k++) result[order[k]!.i] = rank;
    start = end + 1;
  }
  return result;
}

/** Spearman's rho: Pearson's r of the ranks (ties averaged). */
export function spearman(xs: readonly number[], ys: readonly number[]): number | null {
  return pearson(ranks(xs), ranks(ys));
}

/** Spearman-Brown: the reliability of a test k times as long as one with reliability r. */
export function spearmanBrown(r: number, k = 2): number {
  return (k * r) / (1 + (k - 1) * r);
}

export interface SplitHalf {
  /** Units (models or configurations) with a value on both halves. */
  n: number;
  r: number | null;
  corrected: number | null;
}

/** Split-half reliability: Pearson's r across units of half A vs half B, then Spearman-Brown (k = 2). */
export function splitHalf(pairs: readonly { a: number | null; b: number | null }[]): SplitHalf {
  const complete = pairs.filter((p): p is { a: number; b: number } => p.a !== null && p.b !== null);
  const r = pearson(
    complete.map((p) => p.a),
    complete.map((p) => p.b),
  );
  return { n: complete.length, r, corrected: r === null ? null : spearmanBrown(r) };
}
