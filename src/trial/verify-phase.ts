// Verification of a trial's outputs on the host, outside anything the agent could write: the task's
// verifier in a killable worker by default, its failures sorted into the taxonomy (an output that
// breaks the verifier fails the trial as `format`; a verifier broken whatever the output is the task's bug).
import { internalError, type TrialError, trialError, UNVERIFIED, type Verdict } from "../model/index.ts";
import type { ProjectPaths } from "../project.ts";
import type { LoadedTask } from "../task/index.ts";
import { type OutputForVerification, VerifierRunError, verifyKillable } from "../verify/index.ts";

/** Verification as the lifecycle calls it; by default the task's verifier in a killable worker. */
export type VerifyTrial = (
  task: LoadedTask,
  outputs: readonly OutputForVerification[],
  timeoutMs: number,
) => Promise<Verdict>;

/**
 * A trial's outputs through `verify`, as a verdict and the error of the taxonomy: `verifier-timeout`
 * / `verifier-crash` fail the trial as `format` (the output caused it); an unverified verdict is
 * `verifier-broken` (the task's bug, not counted).
 */
export async function verifyOutputs(
  verify: VerifyTrial,
  task: LoadedTask,
  given: readonly OutputForVerification[],
  timeoutMs: number,
): Promise<{ verdict: Verdict; error: TrialError | null }> {
  try {
    const verdict = await verify(task, given, timeoutMs);
    const broken =
      verdict.status === "unverified" ? trialError("verifier-broken", verdict.reason ?? "") : null;
    return { verdict, error: broken };
  } catch (err) {
    if (!(err instanceof VerifierRunError)) return { verdict: UNVERIFIED, error: internalError(err) };
    const kind = err.reason === "timeout" ? "verifier-timeout" : "verifier-crash";
    const verdict: Verdict = {
      status: "fail",
      reward: 0,
      score: 0,
      criteria: [],
      attribution: "format",
      reason: `${err.message} (on this output)`,
    };
    return { verdict, error: trialError(kind, err.message) };
  }
}

export const defaultVerify =
  (paths: ProjectPaths): VerifyTrial =>
  (task, outputs, timeoutMs) =>
    verifyKillable(paths.root, task, outputs, timeoutMs);
