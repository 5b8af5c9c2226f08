// A full disk is the agent's failure: when the agent phase ends in an error a full disk can cause
// (the harness or the solution died) while one of the places the agent can write to is full (a
// capped volume, /tmp or /dev/shm; of blocks or of inodes), the trial's error is `disk-full`,
// whatever the harness made of it.
import { type FailureKind, type TrialError, trialError } from "../record/index.ts";
import type { TrialSandbox } from "../sandbox/index.ts";

/**
 * The errors a full disk can be behind. Not the provider's (an outage is one whatever the disk
 * holds), not harness-start (the agent had not acted), not timeout (already the agent's, and
 * more telling).
 */
const DISK_SHAPED: readonly FailureKind[] = ["harness-exit", "agent-exit", "solution-failed"];

/** `error`, or disk-full naming the full folder and the original error; a failed look keeps `error`. */
export async function diskFullOr(box: TrialSandbox, error: TrialError | null): Promise<TrialError | null> {
  if (!error || !DISK_SHAPED.includes(error.kind) || !box.fullFolder) return error;
  const full = await box.fullFolder().catch(() => null);
  if (!full) return error;
  return trialError(
    "disk-full",
    `${full} is full; the agent phase ended with ${error.kind}: ${error.message}`,
  );
}
