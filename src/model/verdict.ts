// The verdict of one trial: pass/fail, reward and partial score, per-criterion results, attribution.
import { z } from "zod";

export const CriterionResult = z.object({
  name: z.string(),
  passed: z.boolean(),
  /** Why it failed (or what was checked), in words. */
  detail: z.string().optional(),
  /**
   * A rubric criterion's weight in the partial score (1 unless the verifier declares one); absent on
   * the comparison with the reference (weight 1).
   */
  weight: z.number().positive().optional(),
});

/** Why a failed trial failed: ignorance, a perturbed convention, an unusable format, or anything else. */
export const Attribution = z.union([
  z.literal("default-convention"),
  z.templateLiteral(["perturbed-convention:", z.string().min(1)]),
  z.literal("format"),
  z.literal("other"),
]);

export const Verdict = z.object({
  status: z.enum(["pass", "fail", "unverified"]),
  /** R = product of the criteria (1 only when all pass). */
  reward: z.number().min(0).max(1),
  /** Partial score sum(w_k v_k) / sum(w_k) (w_k = 1 unless weighted: sum(v_k)/K), reported beside the reward. */
  score: z.number().min(0).max(1),
  criteria: z.array(CriterionResult),
  /** Set for failed verdicts only. */
  attribution: Attribution.nullable(),
  /**
   * Failed verdicts: per candidate convention set (`default-convention`, `perturbed-convention:<name>`),
   * the share of the values where that set's answer differs from the artefact's on which the output
   * agrees with that set. Attribution picks the highest share >= 0.5.
   */
  agreement: z.record(z.string(), z.number().min(0).max(1)).optional(),
  reason: z.string().optional(),
  /** Readable expected-vs-actual diff, capped in size. */
  diff: z.string().optional(),
});

export type CriterionResult = z.infer<typeof CriterionResult>;
export type Attribution = z.infer<typeof Attribution>;
export type Verdict = z.infer<typeof Verdict>;

export const UNVERIFIED: Verdict = {
  status: "unverified",
  reward: 0,
  score: 0,
  criteria: [],
  attribution: null,
  reason: "no verifier ran",
};
