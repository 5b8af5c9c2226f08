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

/** Should the engine start another attempt for this record's slot in the same session? */
export function isRetryable(record: Pick<TrialRecord, "error">): boolean {
  return record.error !== null && FAILURE_KINDS[record.error.kind].retried;
}
