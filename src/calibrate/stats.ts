// Pass-rate statistics: the Wilson score interval (95% by default) for passes out of valid runs, and
// the exact one-sided bound that 0 passes in n trials puts on the pass rate.

/** The two-sided 95% normal quantile, z_{0.975}. */
export const Z95 = 1.959963984540054;

export interface Interval {
  lo: number;
  hi: number;
}

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

/** passes / runs, or null when there is no valid run. */
export function passRate(passes: number, runs: number): number | null {
  return runs === 0 ? null : passes / runs;
}

/** The exact one-sided (1 - alpha) upper bound on p after 0 passes in n trials: 1 - alpha^(1/n). */
export function zeroPassUpperBound(runs: number, alpha: number): number {
  return runs === 0 ? 1 : 1 - alpha ** (1 / runs);
}

/** The fewest trials whose 0 passes put that bound below `bound`: the least n > ln(alpha) / ln(1 - bound). */
export function trialsToBound(bound: number, alpha: number): number {
  return Math.floor(Math.log(alpha) / Math.log(1 - bound)) + 1;
}
