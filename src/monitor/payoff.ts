// The prospective choice's payoff schedule: what each path earns when right or wrong. The default
// is the one the battery's published data use.
import { readFileSync } from "node:fs";
import { PayoffSchedule } from "../record/index.ts";

export { PayoffSchedule };

export const DEFAULT_PAYOFF: PayoffSchedule = PayoffSchedule.parse({});

/** The three paths; the battery's REQUEST_HINT is kgate's REQUEST_SPEC. */
export type ProspectivePath = "ANSWER_DIRECTLY" | "REQUEST_SPEC" | "DECLINE";

export function payoff(schedule: PayoffSchedule, path: ProspectivePath, correct: boolean): number {
  if (path === "DECLINE") return schedule.decline;
  const row = path === "ANSWER_DIRECTLY" ? schedule.direct : schedule.withSpec;
  return correct ? row.correct : row.wrong;
}

/** The schedule in a JSON file (fields as PayoffSchedule, each defaulted); errors name the file and field. */
export function loadPayoffSchedule(file: string | undefined): PayoffSchedule {
  if (file === undefined) return DEFAULT_PAYOFF;
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, "utf8"));
  } catch (err) {
    throw new Error(`${file}: ${(err as Error).message}`);
  }
  const parsed = PayoffSchedule.strict().safeParse(json);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new Error(`${file}: ${issue.path.join(".") || "(top level)"}: ${issue.message}`);
}
