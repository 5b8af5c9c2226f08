// A full disk is the agent's failure: when the agent phase ends in an error while one of the
// sandbox's writable folders is full, the trial's error is `disk-full` (whatever the harness made of it).
import { type TrialError, trialError } from "../model/index.ts";
import type { TrialSandbox } from "../sandbox/index.ts";

/** `error`, or disk-full naming the full folder and the original error; a failed look keeps `error`. */
export async function diskFullOr(box: TrialSandbox, error: TrialError | null): Promise<TrialError | null> {
  if (!error || error.kind === "cancelled" || error.kind === "timeout" || !box.fullFolder) return error;
  const full = await box.fullFolder().catch(() => null);
  if (!full) return error;
  return trialError(
    "disk-full",
    `${full} is full; the agent phase ended with ${error.kind}: ${error.message}`,
  );
}
