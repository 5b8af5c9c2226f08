// Pass-rate statistics: the pass rate of valid runs, the exact one-sided bound that 0 passes in
// n trials puts on the pass rate (the Wilson interval is src/common's), and the unbiased pass@k
// and pass^k estimators over a cell's trials (docs/calibrate.md#passk-and-passk).

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

function checkPassK(passes: number, runs: number, k: number): void {
  if (![passes, runs, k].every(Number.isInteger) || passes < 0 || passes > runs || k < 1 || k > runs) {
    throw new RangeError(
      `pass@k: need integers 0 <= passes <= runs and 1 <= k <= runs, got ${passes}/${runs}, k = ${k}`,
    );
  }
}

/**
 * C(a, k) / C(n, k) for a <= n, as the product of (a - i) / (n - i) over i < k: no factorial is
 * formed, so it stays exact enough for any n (0 once a < k).
 */
function chooseRatio(a: number, n: number, k: number): number {
  let ratio = 1;
  for (let i = 0; i < k && ratio > 0; i++) ratio *= Math.max(0, a - i) / (n - i);
  return ratio;
}

/**
 * pass@k (Chen et al. 2021, eq. 1): the chance that at least one of k trials drawn without
 * replacement from the cell's n valid trials passes, 1 - C(n - c, k) / C(n, k); an unbiased
 * estimate of 1 - (1 - p)^k.
 */
export function passAtK(passes: number, runs: number, k: number): number {
  checkPassK(passes, runs, k);
  return 1 - chooseRatio(runs - passes, runs, k);
}

/**
 * pass^k (Yao et al. 2024, tau-bench): the chance that all k trials drawn without replacement from
 * the cell's n valid trials pass, C(c, k) / C(n, k); an unbiased estimate of p^k.
 */
export function passHatK(passes: number, runs: number, k: number): number {
  checkPassK(passes, runs, k);
  return chooseRatio(passes, runs, k);
}

/** Both estimators for every k from 1 to the cell's valid runs (none without a valid run). */
export function passKCurve(
  passes: number,
  runs: number,
): Array<{ k: number; passAt: number; passHat: number }> {
  return Array.from({ length: runs }, (_, i) => ({
    k: i + 1,
    passAt: passAtK(passes, runs, i + 1),
    passHat: passHatK(passes, runs, i + 1),
  }));
}

/**
 * Several cells' curves pooled as benchmarks report them: at each k, the mean of pass@k and of
 * pass^k over the cells with k or more valid trials (each cell one problem, weighted equally).
 */
export function pooledPassK(
  curves: ReadonlyArray<ReadonlyArray<{ k: number; passAt: number; passHat: number }>>,
): Array<{ k: number; passAt: number; passHat: number; cells: number }> {
  const longest = Math.max(0, ...curves.map((c) => c.length));
  return Array.from({ length: longest }, (_, i) => {
    const at = curves.flatMap((c) => (c[i] ? [c[i]] : []));
    const mean = (pick: (p: { passAt: number; passHat: number }) => number) =>
      at.reduce((s, p) => s + pick(p), 0) / at.length;
    return { k: i + 1, passAt: mean((p) => p.passAt), passHat: mean((p) => p.passHat), cells: at.length };
  });
}
