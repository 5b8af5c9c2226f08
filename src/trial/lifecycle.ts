// The one trial lifecycle, with pluggable forms: a form (an agent in a sandbox, one conversation
// inline, several tasks in one sandbox) runs its timed, bounded phases and hands back what it made;
// the lifecycle verifies each task's outputs on the host (killable), builds the one record and
// appends it. Never throws: whatever fails is the record's error, of the closed taxonomy.
import path from "node:path";
import {
  type Condition,
  FAILURE_KINDS,
  internalError,
  type ProspectiveOutcome,
  type Provenance,
  type SessionOutcome,
  type TrialBudget,
  type TrialError,
  type TrialForm,
  type TrialRecord,
  trialError,
  UNVERIFIED,
  type Usage,
  type Verdict,
} from "../record/index.ts";
import type { OutputFile } from "../sandbox/index.ts";
import type { LoadedTask } from "../task/index.ts";
import type { OutputForVerification } from "../verify/index.ts";
import { trialDirOf } from "./ids.ts";
import { judgeUsageOf } from "./judge-phase.ts";
import { cancelledError, PhaseClock } from "./phases.ts";
import {
  buildRecord,
  canaryLeak,
  NO_AGENT,
  type TrialIdentity,
  type TrialOutcome,
  writeRecord,
} from "./record-parts.ts";
import { FileTrajectory } from "./trajectory.ts";
import { type VerifyTrial, verifyOutputs } from "./verify-phase.ts";

/** What a form runs with: its identity, the clock its phases are timed on, the trajectory, the budget. */
export interface FormEnv {
  identity: TrialIdentity;
  clock: PhaseClock;
  trajectory: FileTrajectory;
  budget: TrialBudget;
  signal?: AbortSignal;
}

/** One task's outputs to verify: a session has one per task, the other forms one. */
export interface VerifyTarget {
  task: LoadedTask;
  /** The task's folder in a session's work directory; null for the single-task forms. */
  folder: string | null;
  outputs: OutputForVerification[];
}

/** What a form hands back to the lifecycle. */
export interface FormRun {
  outcome: TrialOutcome;
  /** Every output collected, as the record lists them (a session's under each task's folder). */
  files: OutputFile[];
  targets: VerifyTarget[];
  error: TrialError | null;
  fileSet: { digest: string; artefactDigest: string | null } | null;
  provenance: Provenance | null;
  /** The condition placed: the cell's, or +A when a -A agent asked for the specification. */
  placed: Condition;
  prospective: ProspectiveOutcome | null;
  /** Set when nothing was to be verified (a declined trial): the verdict as it stands. */
  verdict?: Verdict;
}

/** A form of the trial: sandboxed agent, inline conversation, or a multi-task session. */
export interface LifecycleForm {
  readonly name: TrialForm;
  /** Runs the form's phases on env.clock; should not throw (a throw is recorded as `internal`). */
  execute(env: FormEnv): Promise<FormRun>;
}

export interface LifecycleOptions {
  identity: TrialIdentity;
  form: LifecycleForm;
  /** null: no verification (verdict `unverified`, left out of rates). */
  verify: VerifyTrial | null;
  /** The trial's budget (trialBudget, computed once by the form's runner): its phases' bounds, and the record keeps it. */
  budget: TrialBudget;
  /** Cancels the trial (recorded as `cancelled`, never as the agent's failure). */
  signal?: AbortSignal;
}

/** A session's verdict: pass when every task passes; reward the product, score the mean, a criterion a task. */
export function sessionVerdict(targets: readonly VerifyTarget[], verdicts: readonly Verdict[]): Verdict {
  const passed = verdicts.filter((v) => v.status === "pass").length;
  const all = passed === verdicts.length;
  return {
    status: all ? "pass" : "fail",
    reward: verdicts.reduce((r, v) => r * v.reward, 1),
    score: verdicts.length ? verdicts.reduce((s, v) => s + v.score, 0) / verdicts.length : 0,
    criteria: verdicts.map((v, i) => ({
      name: `${targets[i]!.folder ?? "task"} (${targets[i]!.task.id})`,
      passed: v.status === "pass",
      ...(v.reason ? { detail: v.reason } : {}),
    })),
    attribution: all ? null : "other",
    reason: `${passed} of ${verdicts.length} task(s) passed`,
  };
}

interface Verified {
  verdict: Verdict;
  error: TrialError | null;
  session: SessionOutcome | null;
  /** What the judges of judge criteria cost, or null when none was asked. */
  judgeUsage: Usage | null;
}

/** Each target through the verifier; a session's counted verifier failures fail their own task only. */
async function verifyTargets(
  o: LifecycleOptions,
  verify: VerifyTrial,
  run: FormRun,
  timeoutMs: number,
): Promise<Verified> {
  const checked: Array<{ verdict: Verdict; error: TrialError | null }> = [];
  for (const target of run.targets)
    checked.push(await verifyOutputs(verify, target.task, target.outputs, timeoutMs, o.signal));
  const judgeUsage = judgeUsageOf(checked.map((c) => c.verdict));
  if (o.form.name !== "session")
    return { ...(checked[0] ?? { verdict: UNVERIFIED, error: null }), session: null, judgeUsage };
  const uncounted = checked.find((c) => c.error && !FAILURE_KINDS[c.error.kind].counted);
  const session: SessionOutcome = {
    key: o.identity.trialId,
    tasks: run.targets.map((t, i) => ({
      id: t.task.id,
      digests: {
        task: t.task.digests.task,
        instruction: t.task.digests.instruction,
        environment: t.task.digests.environment,
      },
      folder: t.folder ?? "",
      verdict: checked[i]!.verdict,
    })),
  };
  const verdicts = checked.map((c) => c.verdict);
  return {
    verdict: sessionVerdict(run.targets, verdicts),
    error: uncounted?.error ?? null,
    session,
    judgeUsage,
  };
}

function leaked(run: FormRun, trajectory: FileTrajectory | null): boolean | null {
  const found = run.targets.map((t) => canaryLeak(t.task, run.placed, trajectory, run.files));
  if (found.every((f) => f === null)) return null;
  return found.some((f) => f === true);
}

/** Runs one trial of any form and appends its record to runDir/trials.jsonl; errors are recorded, never thrown. */
export async function runLifecycle(o: LifecycleOptions): Promise<TrialRecord> {
  const { identity } = o;
  const startedAt = new Date();
  const clock = new PhaseClock();
  const { budget } = o;
  let trajectory: FileTrajectory | null = null;
  let run: FormRun | null = null;
  let verified: Verified = { verdict: UNVERIFIED, error: null, session: null, judgeUsage: null };
  let error: TrialError | null = null;
  try {
    trajectory = new FileTrajectory(
      path.join(trialDirOf(identity.runDir, identity.trialId), "trajectory.jsonl"),
    );
    const done = await o.form.execute({ identity, clock, trajectory, budget, signal: o.signal });
    run = done;
    error = done.error;
    if (done.verdict) verified.verdict = done.verdict;
    else if (o.verify !== null && (error === null || FAILURE_KINDS[error.kind].counted)) {
      const verify = o.verify;
      verified = await clock.run("verify", () => verifyTargets(o, verify, done, budget.phases.verify));
      error ??= verified.error;
    }
    trajectory.close();
    if (trajectory.failure)
      error ??= trialError("evidence-write", `trajectory: ${trajectory.failure.message}`);
  } catch (err) {
    error = internalError(err);
    trajectory?.close();
  }
  if (o.signal?.aborted && error === null && verified.verdict.status === "unverified")
    error = cancelledError(o.signal);
  const record = buildRecord({
    ...identity,
    provenance: run?.provenance ?? null,
    startedAt,
    phases: clock.ordered(),
    budget,
    fileSet: run?.fileSet ?? null,
    outcome: run?.outcome ?? NO_AGENT,
    files: run?.files ?? [],
    verdict: verified.verdict,
    error,
    trajectory: trajectory ? path.relative(identity.runDir, trajectory.file).split(path.sep).join("/") : null,
    canaryLeak: run ? leaked(run, trajectory) : null,
    prospective: run?.prospective ?? null,
    session: verified.session,
    judgeUsage: verified.judgeUsage,
  });
  return writeRecord(identity.runDir, record);
}
