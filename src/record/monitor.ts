// The monitoring questions' results as a record keeps them (issue 17): the retrospective KEEP/WITHDRAW
// and BET questions after a trial, the prospective choice before a -A trial; they never change the verdict.
import { z } from "zod";
import { TrialError, trialError } from "./failure.ts";
import { Usage } from "./usage.ts";

/**
 * A question's failure, of the closed taxonomy. Records written before version 3 kept a bare message,
 * whose kind nobody recorded: it reads as `internal` (docs/runs.md).
 */
const QuestionError = z.preprocess(
  (v) => (typeof v === "string" ? trialError("internal", v) : v),
  TrialError.nullable(),
);

const QuestionTurn = z.object({ probe: z.string(), message: z.string(), reply: z.string() });

/** The questions asked after the agent (issue 17): their own tokens; they never change the verdict. */
export const RetrospectiveOutcome = z.object({
  /** `same-conversation`: the built-in loop's conversation went on (no tools run). */
  mode: z.enum(["same-conversation", "follow-up"]),
  keep: z.enum(["KEEP", "WITHDRAW"]).nullable(),
  bet: z.enum(["BET", "NO_BET"]).nullable(),
  /** Every question turn in order: the question, what was sent, the (capped) reply. */
  turns: z.array(QuestionTurn),
  usage: Usage,
  error: QuestionError.default(null),
});

/** What each path of the prospective choice earns when right or wrong; default the battery's. */
export const PayoffSchedule = z.object({
  direct: z.object({ correct: z.number(), wrong: z.number() }).default({ correct: 1, wrong: 0 }),
  withSpec: z.object({ correct: z.number(), wrong: z.number() }).default({ correct: 0.5, wrong: 0.1 }),
  decline: z.number().default(0.25),
});

/** The choice before a -A trial; under REQUEST_SPEC the artefact was placed (its digest as placed). */
export const ProspectiveOutcome = z.object({
  choice: z.enum(["ANSWER_DIRECTLY", "REQUEST_SPEC", "DECLINE"]).nullable(),
  turns: z.array(QuestionTurn),
  usage: Usage,
  artefactPlaced: z.boolean(),
  /** sha256 of the bytes placed, equal to the task's artefact digest; null when nothing was placed. */
  placedDigest: z.string().nullable(),
  error: QuestionError.default(null),
  /** The schedule the prompt stated and the payoff is scored with; null in records before it was kept. */
  schedule: PayoffSchedule.nullable().default(null),
});

export const MonitorOutcome = z.object({
  retrospective: RetrospectiveOutcome.nullable().default(null),
  prospective: ProspectiveOutcome.nullable().default(null),
});

export type MonitorOutcome = z.infer<typeof MonitorOutcome>;
export type RetrospectiveOutcome = z.infer<typeof RetrospectiveOutcome>;
export type ProspectiveOutcome = z.infer<typeof ProspectiveOutcome>;
export type PayoffSchedule = z.infer<typeof PayoffSchedule>;
