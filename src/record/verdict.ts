// The verdict of one trial: pass/fail, reward and partial score, per-criterion results (a judge
// criterion's with the judge's verdict, reason, tokens and cost), attribution.
import { z } from "zod";
import { Usage } from "./usage.ts";

/**
 * What the judge of a judge criterion said. `pending`: not judged yet (the verifier's worker leaves
 * judge criteria to the host); `pass` / `fail`: the judge's answer; `invalid`: the deliverable broke
 * the judge (an answer off its schema, a full context, a request refused for its content): a failed
 * criterion, the agent's doing; `not-run`: the outputs it reads are unusable (a failed criterion, as a
 * code criterion on them); `error`: the judge gave no verdict (infrastructure: the trial is not
 * counted, never passed); `skipped`: not judged and left out of the reward (only `kgate check`
 * without the judge's key).
 */
export const JudgeVerdict = z.enum(["pending", "pass", "fail", "invalid", "not-run", "error", "skipped"]);

export const JudgeOutcome = z.object({
  /** The agent configuration of kgate.config.json that judges. */
  config: z.string(),
  /** The criterion as the judge is given it (its text under the artefact's conventions). */
  criterion: z.string(),
  /** The outputs the judge reads. */
  reads: z.array(z.string()),
  verdict: JudgeVerdict,
  /** The judge's short reason (or why it gave none). */
  reason: z.string().optional(),
  /** The model that answered, as the provider reports it. */
  model: z.string().nullable().optional(),
  /** The temperature sent (0 unless configured); null when the provider refused one. */
  temperature: z.number().nullable().optional(),
  /** The judge's tokens and cost for this criterion (its attribution calls included). */
  usage: Usage.optional(),
  /**
   * The criterion's text under each candidate convention set whose text differs from the artefact's
   * (`default-convention`, `perturbed-convention:<name>`): a failed criterion is judged against them
   * to attribute the failure.
   */
  candidates: z.record(z.string(), z.string()).optional(),
  /** Per candidate judged: did the deliverable meet the criterion as that candidate states it? */
  attribution: z.record(z.string(), z.boolean()).optional(),
});

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
  /** A judge criterion's judge: its verdict, reason, model, tokens and cost. */
  judge: JudgeOutcome.optional(),
});

/** Per candidate: its distinguishing values (and judge criteria), and how many the output agrees with. */
export const Evidence = z.record(
  z.string(),
  z.object({ discriminating: z.number().int().nonnegative(), agreeing: z.number().int().nonnegative() }),
);

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
  /** The counts behind `agreement`, kept while judge criteria are pending (their evidence adds to them). */
  evidence: Evidence.optional(),
  reason: z.string().optional(),
  /** Readable expected-vs-actual diff, capped in size. */
  diff: z.string().optional(),
});

export type CriterionResult = z.infer<typeof CriterionResult>;
export type JudgeVerdict = z.infer<typeof JudgeVerdict>;
export type JudgeOutcome = z.infer<typeof JudgeOutcome>;
export type Evidence = z.infer<typeof Evidence>;
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
