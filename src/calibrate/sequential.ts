// Sequential screening: Wald's sequential probability ratio test (SPRT) per clause, over the
// valid trials of one cell. A clause "p >= t" is tested as p = t + delta (met) against
// p = t - delta (not met); "p <= t" the other way round. At a threshold of 0 the pass rate can
// only be bounded, never proven 0, so "p = 0" is tested as p = epsilon against p = 2 * delta
// (and "p = 1" as 1 - epsilon against 1 - 2 * delta). The test decides when the log-likelihood
// ratio leaves [ln(beta / (1 - alpha)), ln((1 - beta) / alpha)]; alpha bounds wrongly deciding
// "met", beta wrongly deciding "not met", each at the edge of the indifference zone.
import type { SequentialConfig } from "./config.ts";
import { isExtreme, isTrivial, type Requirement } from "./requirement.ts";

export type SprtSettings = Pick<SequentialConfig, "alpha" | "beta" | "delta" | "epsilon">;

export interface Hypotheses {
  /** The pass rate at which the clause is taken as met. */
  met: number;
  /** The pass rate at which the clause is taken as not met. */
  notMet: number;
}

export function hypotheses(req: Requirement, s: SprtSettings): Hypotheses {
  const clamp = (p: number) => Math.min(1 - s.epsilon, Math.max(s.epsilon, p));
  const t = req.threshold;
  if (isExtreme(req)) {
    return req.op === "<="
      ? { met: s.epsilon, notMet: clamp(2 * s.delta) }
      : { met: 1 - s.epsilon, notMet: clamp(1 - 2 * s.delta) };
  }
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

/** The SPRT state of a clause after `passes` out of `runs` valid trials. */
export function sprt(req: Requirement, passes: number, runs: number, s: SprtSettings): SprtStatus {
  const upper = Math.log((1 - s.beta) / s.alpha);
  const lower = Math.log(s.beta / (1 - s.alpha));
  if (isTrivial(req)) return { verdict: "met", llr: Number.POSITIVE_INFINITY, lower, upper };
  const h = hypotheses(req, s);
  const llr = passes * Math.log(h.met / h.notMet) + (runs - passes) * Math.log((1 - h.met) / (1 - h.notMet));
  const verdict: SprtVerdict = llr >= upper ? "met" : llr <= lower ? "not-met" : "undecided";
  return { verdict, llr, lower, upper };
}

/** The rule in words, for reports. */
export function describeSequential(s: SequentialConfig, n: number): string {
  const confidence = Math.round((1 - Math.max(s.alpha, s.beta)) * 1000) / 10;
  return (
    `sequential screening: Wald SPRT per clause at ${confidence}% confidence (alpha ${s.alpha}, beta ${s.beta}), ` +
    `indifference zone ±${s.delta} around each threshold (p = 0 tested as p <= ${s.epsilon} against p >= ${2 * s.delta}); ` +
    `${n} trials per cell first, then one more at a time for undecided clauses, at most ${s.cap} per cell`
  );
}
