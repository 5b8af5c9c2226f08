// The reward of an exported row, as the generated Python module computes it: binary (1 when kgate's
// verdict passes), or ignorance-aware, the payoff schedule of the prospective choice
// (docs/monitoring.md) as a reward: a reply that is exactly REQUEST_SPEC or DECLINE (read as the
// prospective choice is read) earns that choice's payoff, any other reply is an answer.
import { parseChoice } from "../../monitor/index.ts";
import type { RewardScheme } from "./ground-truth.ts";

export type RowChoice = "ANSWER" | "REQUEST_SPEC" | "DECLINE";

const CHOICES = ["ANSWER_DIRECTLY", "REQUEST_SPEC", "DECLINE"] as const;

/** What the reply chose: only the ignorance-aware scheme reads a choice. */
export function rowChoice(scheme: RewardScheme, reply: string): RowChoice {
  if (scheme.scheme !== "ignorance-aware") return "ANSWER";
  const parsed = parseChoice(reply, CHOICES);
  return parsed.ok && parsed.choice !== "ANSWER_DIRECTLY" ? parsed.choice : "ANSWER";
}

/**
 * The reward. Ignorance-aware: DECLINE earns `decline`; REQUEST_SPEC earns `withSpec.correct`
 * where the prompt lacks the specification (-A: the request is the right move, and the row cannot
 * hand the specification over) and `withSpec.wrong` where the prompt holds it (a request there is an
 * answer withheld); an answer earns `direct.correct` or `direct.wrong`.
 */
export function rowReward(scheme: RewardScheme, choice: RowChoice, passed: boolean): number {
  if (scheme.scheme === "binary") return passed ? 1 : 0;
  const { schedule } = scheme;
  if (choice === "DECLINE") return schedule.decline;
  if (choice === "REQUEST_SPEC")
    return scheme.specGiven ? schedule.withSpec.wrong : schedule.withSpec.correct;
  return passed ? schedule.direct.correct : schedule.direct.wrong;
}
