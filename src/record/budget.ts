// The budget a trial ran under, as its record keeps it: the agent's wall clock, tokens and turns (the
// tighter of the task's limits and the agent configuration's), the sandbox's own deadline and the
// bound of every timed phase. Computed once at the trial's start (src/trial/budget.ts).
import { z } from "zod";

const Ms = z.number().int().positive();

/** How long each timed phase of a trial may take, in ms (the agent phase's bound is the wall clock). */
export const PhaseBounds = z.object({
  create: Ms,
  copyIn: Ms,
  stop: Ms,
  copyOut: Ms,
  remove: Ms,
  verify: Ms,
  /** How long an agent may take to return after its signal was aborted. */
  agentGrace: Ms,
});
export type PhaseBounds = z.infer<typeof PhaseBounds>;

export const TrialBudget = z.object({
  /** Seconds the agent may run: the tighter of the task's limits.timeoutSec and the configuration's timeoutSec. */
  wallClockSec: z.number().int().positive(),
  /** Tokens (input + cache + output) over the trial's model calls: limits.maxTokens and the configuration's tokenBudget. */
  tokens: z.number().int().positive(),
  /** Output tokens over the trial, when the configuration sets outputTokenBudget; null: no such cap. */
  outputTokens: z.number().int().positive().nullable(),
  /** Model turns: limits.maxTurns and the configuration's maxTurns. */
  turns: z.number().int().positive(),
  /** Seconds after which the sandbox ends itself (kgate gone or not); null for a trial without a sandbox. */
  sandboxDeadlineSec: z.number().int().positive().nullable(),
  phases: PhaseBounds,
});
export type TrialBudget = z.infer<typeof TrialBudget>;
