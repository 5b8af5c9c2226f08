// The prospective choice's payoff schedule: what each path earns when right or wrong. The default
// is the one the battery's published data use.
import { z } from "zod";

export const PayoffSchedule = z.object({
  direct: z.object({ correct: z.number(), wrong: z.number() }).default({ correct: 1, wrong: 0 }),
  withSpec: z.object({ correct: z.number(), wrong: z.number() }).default({ correct: 0.5, wrong: 0.1 }),
  decline: z.number().default(0.25),
});
export type PayoffSchedule = z.infer<typeof PayoffSchedule>;

export const DEFAULT_PAYOFF: PayoffSchedule = PayoffSchedule.parse({});

/** The three paths; the battery's REQUEST_HINT is kgate's REQUEST_SPEC. */
export type ProspectivePath = "ANSWER_DIRECTLY" | "REQUEST_SPEC" | "DECLINE";

export function payoff(schedule: PayoffSchedule, path: ProspectivePath, correct: boolean): number {
  if (path === "DECLINE") return schedule.decline;
  const row = path === "ANSWER_DIRECTLY" ? schedule.direct : schedule.withSpec;
  return correct ? row.correct : row.wrong;
}
