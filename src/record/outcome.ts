// How a record counts: in pass rates (pass or fail) or left out (an error not of the agent's doing,
// or a verdict nobody gave).
import { FAILURE_KINDS } from "./failure.ts";
import type { TrialRecord } from "./record.ts";

/** `infra`: any error the taxonomy does not count (provider, sandbox, kgate, cancelled). */
export type Outcome = "pass" | "fail" | "infra" | "unverified";

export function outcomeOf(record: Pick<TrialRecord, "error" | "verdict">): Outcome {
  if (record.error && !FAILURE_KINDS[record.error.kind].counted) return "infra";
  if (record.verdict.status === "unverified") return "unverified";
  return record.verdict.status;
}
