// Statistics of the monitoring analysis: a seeded stratified bootstrap interval of the withdraw
// delta, split-half reliability with the Spearman-Brown correction (the bootstrap, Pearson and
// Spearman themselves are src/common's).
import { bootstrap, pearson, resample } from "../common/index.ts";
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

/** The withdraw delta's bootstrap interval, as the analysis shows it (low and high, with its settings). */
export interface DeltaInterval {
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

/**
 * Percentile bootstrap interval of the withdraw delta, resampling correct and incorrect responses
 * apart (so each resample keeps both groups' sizes and its delta stays defined). Null when the
 * delta itself is undefined.
 */
export function bootstrapDelta(
  responses: readonly MonitoredResponse[],
  options: BootstrapOptions = {},
): DeltaInterval | null {
  const resamples = options.resamples ?? 2000;
  const level = options.level ?? 0.95;
  const random = seededRandom(options.seed ?? 42);
  const pick = (n: number) => Math.floor(random() * n);
  const probed = responses.filter((r) => r.keep !== null);
  const correct = probed.filter((r) => r.correct);
  const incorrect = probed.filter((r) => !r.correct);
  if (correct.length === 0 || incorrect.length === 0) return null;
  const interval = bootstrap(
    () => summariseMonitoring([...resample(correct, pick), ...resample(incorrect, pick)]).withdrawDelta,
    resamples,
    level,
  );
  return interval && { low: interval.lo, high: interval.hi, level, resamples };
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
