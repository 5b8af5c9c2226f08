// Sequential screening. An interior clause ("p >= 0.6", "p <= 0.4") is judged by Wald's sequential
// probability ratio test (SPRT) over the valid trials of one cell: "p >= t" is tested as
// p = t + delta (met) against p = t - delta (not met), "p <= t" the other way round; the test
// decides when the log-likelihood ratio leaves [ln(beta / (1 - alpha)), ln((1 - beta) / alpha)].
// A clause "= 0" cannot be proven by sampling: one pass shows p > 0 (not met, at once), and 0/n
// is met once its exact one-sided (1 - alpha) upper bound 1 - alpha^(1/n) falls below zeroBound
// (0.2 at alpha 0.05: n = 14, p < 0.193). "= 1" is the mirror image (one fail: not met).
import type { SequentialConfig } from "./config.ts";
import { isTrivial, type Requirement } from "./requirement.ts";
import { trialsToBound, zeroPassUpperBound } from "./stats.ts";

export type SprtSettings = Pick<SequentialConfig, "alpha" | "beta" | "delta" | "epsilon" | "zeroBound">;

export interface Hypotheses {
  /** The pass rate at which the clause is taken as met. */
  met: number;
  /** The pass rate at which the clause is taken as not met. */
  notMet: number;
}

/** The SPRT's two hypotheses for an interior threshold. */
export function hypotheses(req: Requirement, s: SprtSettings): Hypotheses {
  const clamp = (p: number) => Math.min(1 - s.epsilon, Math.max(s.epsilon, p));
  const t = req.threshold;
  return req.op === ">="
    ? { met: clamp(t + s.delta), notMet: clamp(t - s.delta) }
    : { met: clamp(t - s.delta), notMet: clamp(t + s.delta) };
}

export type SprtVerdict = "met" | "not-met" | "undecided";

export interface SprtStatus {
  verdict: SprtVerdict;
  /** ln L(met) / L(not met) over the valid trials. */
  llr: number;
  lower: number;
  upper: number;
}

/** The SPRT state of an interior clause after `passes` out of `runs` valid trials. */
export function sprt(req: Requirement, passes: number, runs: number, s: SprtSettings): SprtStatus {
  const upper = Math.log((1 - s.beta) / s.alpha);
  const lower = Math.log(s.beta / (1 - s.alpha));
  if (isTrivial(req)) return { verdict: "met", llr: Number.POSITIVE_INFINITY, lower, upper };
  const h = hypotheses(req, s);
  const llr = passes * Math.log(h.met / h.notMet) + (runs - passes) * Math.log((1 - h.met) / (1 - h.notMet));
  const verdict: SprtVerdict = llr >= upper ? "met" : llr <= lower ? "not-met" : "undecided";
  return { verdict, llr, lower, upper };
}

export interface ExtremeStatus {
  verdict: SprtVerdict;
  /** Trials against the clause: passes for "= 0", fails for "= 1". */
  against: number;
  /** The exact one-sided (1 - alpha) bound on the distance from the extreme (1 while against > 0). */
  bound: number;
  /** Valid trials without one against that the clause needs. */
  needed: number;
}

/** A "= 0" or "= 1" clause under sequential screening: one trial against it decides "not met". */
export function extremeStatus(
  req: Requirement,
  passes: number,
  runs: number,
  s: SprtSettings,
): ExtremeStatus {
  const against = req.op === "<=" ? passes : runs - passes;
  const needed = trialsToBound(s.zeroBound, s.alpha);
  const bound = against > 0 ? 1 : zeroPassUpperBound(runs, s.alpha);
  const verdict: SprtVerdict = against > 0 ? "not-met" : runs >= needed ? "met" : "undecided";
  return { verdict, against, bound, needed };
}

/** The rule in words, for reports. */
export function describeSequential(s: SequentialConfig, n: number): string {
  const confidence = Math.round((1 - Math.max(s.alpha, s.beta)) * 1000) / 10;
  const needed = trialsToBound(s.zeroBound, s.alpha);
  return (
    `sequential screening: Wald SPRT per interior clause at ${confidence}% confidence (alpha ${s.alpha}, beta ${s.beta}), ` +
    `indifference zone ±${s.delta} around each threshold; a "= 0" clause is not met at its first pass and met ` +
    `once 0/n puts the one-sided ${Math.round((1 - s.alpha) * 1000) / 10}% upper bound 1 - ${s.alpha}^(1/n) below ` +
    `${s.zeroBound} (n = ${needed}): that shows p < ${s.zeroBound}, never p = 0; ` +
    `${n} trials per cell first, then one more at a time for undecided clauses, at most ${s.cap} per cell`
  );
}
