// Retrospective monitoring metrics of one group of responses: KEEP rates, withdraw delta, the
// battery's indices (L, K, Fp, TRIN, contradiction) and the profile in the battery's order (its
// stated rule, or the thresholds of its script).
import { z } from "zod";

export const KeepChoice = z.enum(["KEEP", "WITHDRAW"]);
export const BetChoice = z.enum(["BET", "NO_BET"]);

/** One monitored answer: was it correct, and what did the questions say (null: not asked or unparsed). */
export const MonitoredResponse = z.object({
  correct: z.boolean(),
  keep: KeepChoice.nullable(),
  bet: BetChoice.nullable(),
});

export type KeepChoice = z.infer<typeof KeepChoice>;
export type BetChoice = z.infer<typeof BetChoice>;
export type MonitoredResponse = z.infer<typeof MonitoredResponse>;

export const MonitoringSummary = z.object({
  n: z.number().int(),
  nCorrect: z.number().int(),
  nIncorrect: z.number().int(),
  /** correct / n (0..1); null when n = 0. */
  accuracy: z.number().nullable(),
  /** Percent of correct answers kept (the battery's kc_rate); null when none is correct. */
  kcRate: z.number().nullable(),
  /** Percent of incorrect answers kept (ki_rate); null when none is incorrect. */
  kiRate: z.number().nullable(),
  /** kcRate - kiRate = P(WITHDRAW | incorrect) - P(WITHDRAW | correct), percentage points. */
  withdrawDelta: z.number().nullable(),
  /** Percent of KEEP over all answers with a KEEP/WITHDRAW reply. */
  keepRate: z.number().nullable(),
  /** L = P(KEEP | incorrect), K = P(BET | incorrect), Fp = P(WITHDRAW | correct), as fractions. */
  L: z.number().nullable(),
  K: z.number().nullable(),
  Fp: z.number().nullable(),
  /** max(n_KEEP, n_WITHDRAW) / n over answers with a KEEP/WITHDRAW reply. */
  TRIN: z.number().nullable(),
  /** P(WITHDRAW and BET) over answers with both replies. */
  contradiction: z.number().nullable(),
  /** Answers whose KEEP/WITHDRAW reply is missing (unparsed or not asked): left out of the rates. */
  nUnparsedKeep: z.number().int(),
});
export type MonitoringSummary = z.infer<typeof MonitoringSummary>;

const ratio = (num: number, den: number): number | null => (den === 0 ? null : num / den);
const percent = (num: number, den: number): number | null => (den === 0 ? null : (100 * num) / den);

/**
 * The 2x2 (correct x KEEP/WITHDRAW) summary. Correct/incorrect counts include every response (as the
 * battery counts items); rates use only those with a parsed reply to the question they concern.
 */
export function summariseMonitoring(responses: readonly MonitoredResponse[]): MonitoringSummary {
  const nCorrect = responses.filter((r) => r.correct).length;
  const nIncorrect = responses.length - nCorrect;
  const keptWith = (correct: boolean) =>
    responses.filter((r) => r.correct === correct && r.keep === "KEEP").length;
  const answeredWith = (correct: boolean) =>
    responses.filter((r) => r.correct === correct && r.keep !== null).length;
  const keptCorrect = keptWith(true);
  const keptIncorrect = keptWith(false);
  const probedCorrect = answeredWith(true);
  const probedIncorrect = answeredWith(false);
  const kcRate = percent(keptCorrect, probedCorrect);
  const kiRate = percent(keptIncorrect, probedIncorrect);
  const probed = probedCorrect + probedIncorrect;
  const kept = keptCorrect + keptIncorrect;
  const betIncorrect = responses.filter((r) => !r.correct && r.bet !== null);
  const both = responses.filter((r) => r.keep !== null && r.bet !== null);
  return {
    n: responses.length,
    nCorrect,
    nIncorrect,
    accuracy: ratio(nCorrect, responses.length),
    kcRate,
    kiRate,
    withdrawDelta: kcRate === null || kiRate === null ? null : kcRate - kiRate,
    keepRate: percent(kept, probed),
    L: ratio(keptIncorrect, probedIncorrect),
    K: ratio(betIncorrect.filter((r) => r.bet === "BET").length, betIncorrect.length),
    Fp: ratio(probedCorrect - keptCorrect, probedCorrect),
    TRIN: ratio(Math.max(kept, probed - kept), probed),
    contradiction: ratio(both.filter((r) => r.keep === "WITHDRAW" && r.bet === "BET").length, both.length),
    nUnparsedKeep: responses.length - probed,
  };
}

export const Profile = z.enum(["A", "B", "C", "unclassified"]);
export type Profile = z.infer<typeof Profile>;

/**
 * Which thresholds give a profile. `stated` (the default) is the battery's stated rule (paper §2.6):
 * A if KEEP >= 95%; else B if KEEP <= 10% or the prospective DECLINE rate >= 90%; else C if the
 * delta >= 15. `script` is the check of the battery's own analysis/leaderboard.py
 * (`_threshold_consistent`), which kgate followed before: A also needs |delta| < 15, and B has no
 * DECLINE alternative.
 */
export const ProfileRule = z.enum(["stated", "script"]);
export type ProfileRule = z.infer<typeof ProfileRule>;

export const PROFILE_THRESHOLDS = { keepA: 95, deltaA: 15, keepB: 10, declineB: 90, deltaC: 15 } as const;

export interface ProfileInput {
  /** Percent KEEP (over T1-T5 for the battery's data). */
  keepRate: number | null;
  /** Withdraw delta, percentage points. */
  delta: number | null;
  /** Percent DECLINE of the prospective choices (T6); null when none was asked. */
  declineRate: number | null;
}

/**
 * The battery's profiles, tested in its order: A (keeps everything), B (withdraws or declines
 * everything), C (monitors), else unclassified. A test whose figure is undefined does not hold.
 */
export function classifyProfile(input: ProfileInput, rule: ProfileRule = "stated"): Profile {
  const t = PROFILE_THRESHOLDS;
  const { keepRate, delta, declineRate } = input;
  const keepsAll = keepRate !== null && keepRate >= t.keepA;
  if (rule === "stated" ? keepsAll : keepsAll && delta !== null && Math.abs(delta) < t.deltaA) return "A";
  if (keepRate !== null && keepRate <= t.keepB) return "B";
  if (rule === "stated" && declineRate !== null && declineRate >= t.declineB) return "B";
  if (delta !== null && delta >= t.deltaC) return "C";
  return "unclassified";
}

/** Mean of the defined values; null when none is. */
export function meanDefined(values: readonly (number | null)[]): number | null {
  const defined = values.filter((v): v is number => v !== null);
  return defined.length === 0 ? null : defined.reduce((a, b) => a + b, 0) / defined.length;
}
