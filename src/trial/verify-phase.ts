// Verification of a trial's outputs on the host, outside anything the agent could write: the task's
// verifier in a killable worker by default, then its judge criteria asked of their judges from the
// host (judge-phase.ts); failures sorted into the taxonomy (an output that breaks the verifier fails
// the trial as `format`; a verifier broken whatever the output is the task's bug; a judge that gives
// no verdict is `judge`, never the agent's failure).
import { judgePanel } from "../agents/index.ts";
import type { ProjectPaths } from "../project.ts";
import { internalError, type TrialError, trialError, UNVERIFIED, type Verdict } from "../record/index.ts";
import type { LoadedTask } from "../task/index.ts";
import { type OutputForVerification, VerifierRunError, verifyKillable } from "../verify/index.ts";
import { JudgeError, judgeVerdict } from "./judge-phase.ts";
import { cancelledError } from "./phases.ts";

/** Verification as the lifecycle calls it; by default the task's verifier in a killable worker, then its judges. */
export type VerifyTrial = (
  task: LoadedTask,
  outputs: readonly OutputForVerification[],
  timeoutMs: number,
  signal?: AbortSignal,
) => Promise<Verdict>;

/**
 * A trial's outputs through `verify`, as a verdict and the error of the taxonomy: `verifier-timeout`
 * / `verifier-crash` fail the trial as `format` (the output caused it); an unverified verdict is
 * `verifier-broken` (the task's bug, not counted); a judge without a verdict is `judge` (not counted).
 */
export async function verifyOutputs(
  verify: VerifyTrial,
  task: LoadedTask,
  given: readonly OutputForVerification[],
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<{ verdict: Verdict; error: TrialError | null }> {
  try {
    const verdict = await verify(task, given, timeoutMs, signal);
    const broken =
      verdict.status === "unverified" ? trialError("verifier-broken", verdict.reason ?? "") : null;
    return { verdict, error: broken };
  } catch (err) {
    if (err instanceof JudgeError) return { verdict: err.verdict, error: trialError("judge", err.message) };
    if (signal?.aborted) return { verdict: UNVERIFIED, error: cancelledError(signal) };
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

export interface DefaultVerifyOptions {
  /** `kgate check` without a judge's key: its criteria are skipped (left out of R) instead of an error. */
  skipUnavailableJudges?: boolean;
  env?: NodeJS.ProcessEnv;
}

/** The task's verifier in a killable worker, then its judge criteria judged on the host. */
export const defaultVerify = (paths: ProjectPaths, options: DefaultVerifyOptions = {}): VerifyTrial => {
  const panel = judgePanel(paths, options.env ? { env: options.env } : {});
  return async (task, outputs, timeoutMs, signal) => {
    const verdict = await verifyKillable(paths.root, task, outputs, timeoutMs);
    return judgeVerdict(verdict, outputs, {
      panel,
      skipUnavailable: options.skipUnavailableJudges ?? false,
      ...(signal ? { signal } : {}),
    });
  };
};
