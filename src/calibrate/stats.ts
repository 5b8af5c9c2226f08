// Pass-rate statistics: the pass rate of valid runs, and the exact one-sided bound that 0 passes in
// n trials puts on the pass rate (the Wilson interval is src/common's).

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
