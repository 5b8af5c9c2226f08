// One trial end to end: a fresh hardened sandbox from the provider, the condition's file set in, the
// agent, every process stopped, the declared outputs out, the sandbox removed, verification on the
// host (killable), one TrialRecord appended. Never throws: whatever fails is the record's error.
import path from "node:path";
import { type Agent, type AgentRunContext, AgentTimeoutError } from "../agents/index.ts";
import {
  type Condition,
  FAILURE_KINDS,
  internalError,
  type ProspectiveOutcome,
  type SandboxRequirements,
  type TrialError,
  type TrialRecord,
  trialError,
  UNVERIFIED,
  type Verdict,
  ZERO_USAGE,
} from "../model/index.ts";
import type { ProjectPaths } from "../project.ts";
import {
  containerLabels,
  HostDownError,
  type OutputFile,
  SANDBOX_WORKDIR,
  type SandboxImage,
  type SandboxProvider,
  SandboxUnavailableError,
  type TrialSandbox,
} from "../sandbox/index.ts";
import { type ConditionFileSet, conditionFileSet, type LoadedTask } from "../task/index.ts";
import { type OutputForVerification, VerifierRunError, verifyKillable } from "../verify/index.ts";
import { diskFullOr } from "./disk-full.ts";
import { trialDirOf, trialId } from "./ids.ts";
import {
  bounded,
  DEFAULT_PHASE_TIMEOUTS,
  PhaseClock,
  type PhaseTimeouts,
  sandboxPhaseError,
} from "./phases.ts";
import { buildRecord, canaryLeak, type TrialOutcome } from "./record-parts.ts";
import { appendTrialRecord } from "./records.ts";
import { FileTrajectory } from "./trajectory.ts";

/** Verification as the trial runner calls it; by default the task's verifier in a killable worker. */
export type VerifyTrial = (
  task: LoadedTask,
  outputs: readonly OutputForVerification[],
  timeoutMs: number,
) => Promise<Verdict>;

export interface TrialOptions {
  paths: ProjectPaths;
  task: LoadedTask;
  condition: Condition;
  agent: Agent;
  runId: string;
  /** runs/<run-id>: trials.jsonl and trials/<trialId>/ go here. */
  runDir: string;
  /** 0-based index of the trial within its cell. */
  index: number;
  /** 1 for the first attempt; retries count up. */
  attempt?: number;
  provider: SandboxProvider;
  /** The sandbox image on that provider (SandboxProvider.prepareImage). */
  image: SandboxImage;
  /** What the agent's prepare() asked for (derived image, env, writable folders). */
  requirements?: SandboxRequirements;
  /** null: no verification (verdict `unverified`, left out of rates). */
  verify?: VerifyTrial | null;
  /** Cancels the trial (recorded as `cancelled`, never as the agent's failure). */
  signal?: AbortSignal;
  timeouts?: Partial<PhaseTimeouts>;
  /** Follow-up turns after the agent (monitoring probes); recorded in the record's `monitor`. */
  followUp?: AgentRunContext["followUp"];
  /** Before a -A trial, the prospective choice: REQUEST_SPEC places the artefact, DECLINE runs nothing. */
  prospective?: (
    task: LoadedTask,
    signal?: AbortSignal,
  ) => Promise<Omit<ProspectiveOutcome, "artefactPlaced" | "placedDigest">>;
}

const NO_AGENT: TrialOutcome = {
  stopReason: "error",
  usage: ZERO_USAGE,
  error: null,
  artefactOpened: null,
  artefactListed: null,
  retrospective: null,
};

function cancelledError(signal: AbortSignal | undefined): TrialError {
  const reason = signal?.reason;
  return trialError("cancelled", reason instanceof Error ? reason.message : "the run was cancelled");
}

/** Runs the agent under the task's wall-clock budget; a cancelled run wins over whatever it returned. */
async function agentPhase(
  o: TrialOptions,
  sandbox: TrialSandbox,
  trajectory: FileTrajectory,
  grace: number,
  /** The condition placed: the cell's, or +A when a -A agent asked for the specification. */
  condition: Condition,
): Promise<TrialOutcome> {
  const { task, agent } = o;
  const limits = task.spec.limits;
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new AgentTimeoutError(`the agent did not finish within ${limits.timeoutSec} s`)),
    limits.timeoutSec * 1000,
  );
  const onCancel = () => controller.abort(o.signal?.reason ?? new Error("the run was cancelled"));
  if (o.signal?.aborted) onCancel();
  else o.signal?.addEventListener("abort", onCancel, { once: true });
  let graceTimer: NodeJS.Timeout | undefined;
  const abandoned = new Promise<never>((_, reject) => {
    controller.signal.addEventListener("abort", () => {
      graceTimer = setTimeout(() => reject(controller.signal.reason), grace);
    });
  });
  const cancelled = () => o.signal?.aborted === true;
  try {
    const result = await Promise.race([
      agent.run({
        instruction: task.instruction.toString("utf8"),
        sandbox,
        limits,
        condition,
        artefact:
          condition === "-A"
            ? null
            : { path: task.spec.artefact.path, description: task.spec.artefact.description },
        task,
        signal: controller.signal,
        trajectory,
        ...(o.followUp ? { followUp: o.followUp } : {}),
      }),
      abandoned,
    ]);
    const base = {
      usage: result.usage,
      artefactOpened: condition === "-A" ? null : (result.artefactOpened ?? null),
      artefactListed: result.artefactListed ?? null,
      retrospective: result.followUp ?? null,
    };
    if (cancelled()) return { ...base, stopReason: "cancelled", error: cancelledError(o.signal) };
    return { ...base, stopReason: result.stopReason, error: result.error ?? null };
  } catch (err) {
    const base = { usage: ZERO_USAGE, artefactOpened: null, artefactListed: null, retrospective: null };
    if (cancelled()) return { ...base, stopReason: "cancelled", error: cancelledError(o.signal) };
    if (controller.signal.reason instanceof AgentTimeoutError) {
      trajectory.append({ type: "error", kind: "timeout", message: controller.signal.reason.message });
      return {
        ...base,
        stopReason: "timeout",
        error: trialError("timeout", controller.signal.reason.message),
      };
    }
    // An agent reports its failures in its result; one that throws is a bug of kgate (or the provider's).
    const error =
      err instanceof HostDownError
        ? trialError("host-down", err.message)
        : err instanceof SandboxUnavailableError
          ? trialError("sandbox-unavailable", err.message)
          : internalError(err);
    trajectory.append({ type: "error", kind: error.kind, message: error.message });
    return { ...base, stopReason: "error", error };
  } finally {
    clearTimeout(timer);
    clearTimeout(graceTimer);
    o.signal?.removeEventListener("abort", onCancel);
  }
}

/** Verifies on the host; a verifier that overruns or throws on the agent's output fails the trial as `format`. */
function verifyPhase(
  o: TrialOptions,
  verify: VerifyTrial,
  files: readonly OutputFile[],
  timeoutMs: number,
): Promise<{ verdict: Verdict; error: TrialError | null }> {
  const given: OutputForVerification[] = files.map((f) => ({
    path: f.record.path,
    status: f.record.status,
    bytes: f.bytes,
    reason: f.record.reason,
  }));
  return verifyOutputs(verify, o.task, given, timeoutMs);
}

/**
 * A trial's outputs through `verify` (the killable worker by default), as a verdict and the error of
 * the taxonomy: `verifier-timeout` / `verifier-crash` fail the trial as `format` (the output caused
 * it); an unverified verdict is `verifier-broken` (the task's bug, not counted).
 */
export async function verifyOutputs(
  verify: VerifyTrial,
  task: LoadedTask,
  given: readonly OutputForVerification[],
  timeoutMs: number,
): Promise<{ verdict: Verdict; error: TrialError | null }> {
  try {
    const verdict = await verify(task, given, timeoutMs);
    // An unverified verdict is the verifier failing whatever the output: the task's bug, not counted.
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

/** Before a -A trial, the agent's choice: REQUEST_SPEC places the artefact (as +A), DECLINE runs nothing. */
async function choosePlacement(
  o: TrialOptions,
): Promise<{ placed: Condition; prospective: ProspectiveOutcome | null }> {
  if (o.condition !== "-A" || !o.prospective) return { placed: o.condition, prospective: null };
  const chosen = await o.prospective(o.task, o.signal);
  const placed: Condition = chosen.choice === "REQUEST_SPEC" ? "+A" : "-A";
  return { placed, prospective: { ...chosen, artefactPlaced: placed === "+A", placedDigest: null } };
}

const DECLINED: Verdict = { ...UNVERIFIED, reason: "declined before the trial (prospective choice)" };

/** Runs one trial and appends its record to runDir/trials.jsonl; errors are recorded, never thrown. */
export async function runTrial(o: TrialOptions): Promise<TrialRecord> {
  const attempt = o.attempt ?? 1;
  const id = trialId(o.task.id, o.condition, o.agent.name, o.index, attempt);
  const startedAt = new Date();
  const clock = new PhaseClock();
  let fileSet: ConditionFileSet | null = null;
  let trajectory: FileTrajectory | null = null;
  let outcome = NO_AGENT;
  let files: OutputFile[] = [];
  let verdict: Verdict = UNVERIFIED;
  let error: TrialError | null = null;
  let placed: Condition = o.condition;
  let prospective: ProspectiveOutcome | null = null;
  try {
    const timeouts = { ...DEFAULT_PHASE_TIMEOUTS, ...o.timeouts };
    ({ placed, prospective } = await choosePlacement(o));
    fileSet = conditionFileSet(o.task, placed);
    if (prospective?.artefactPlaced) prospective.placedDigest = fileSet.artefactDigest;
    trajectory = new FileTrajectory(path.join(trialDirOf(o.runDir, id), "trajectory.jsonl"));
    const declined = prospective?.choice === "DECLINE";
    if (declined) {
      outcome = { ...NO_AGENT, stopReason: "finish" };
      verdict = DECLINED;
    } else {
      const run = await sandboxPhases(o, id, fileSet, trajectory, clock, timeouts, placed);
      ({ outcome, files } = run);
      error = run.error;
    }
    if (!declined && o.verify !== null && (error === null || FAILURE_KINDS[error.kind].counted)) {
      const verify = o.verify ?? defaultVerify(o.paths);
      const checked = await clock.run("verify", () => verifyPhase(o, verify, files, timeouts.verify));
      verdict = checked.verdict;
      error ??= checked.error;
    }
    trajectory.close();
    if (trajectory.failure)
      error ??= trialError("evidence-write", `trajectory: ${trajectory.failure.message}`);
  } catch (err) {
    error = internalError(err);
  }
  if (o.signal?.aborted && error === null && verdict.status === "unverified")
    error = cancelledError(o.signal);
  const record = buildRecord({
    options: o,
    trialId: id,
    attempt,
    startedAt,
    phases: clock.ordered(),
    fileSet,
    outcome,
    files,
    verdict,
    error,
    trajectory: trajectory ? path.relative(o.runDir, trajectory.file).split(path.sep).join("/") : null,
    canaryLeak: canaryLeak(o.task, placed, trajectory, files),
    prospective,
  });
  try {
    appendTrialRecord(o.runDir, record);
  } catch (err) {
    record.error ??= trialError("evidence-write", `trials.jsonl: ${(err as Error).message}`);
  }
  return record;
}

interface SandboxRun {
  outcome: TrialOutcome;
  files: OutputFile[];
  error: TrialError | null;
}

/** create, copy in, agent, stop, copy out, remove: the sandbox part of a trial. */
async function sandboxPhases(
  o: TrialOptions,
  id: string,
  fileSet: ConditionFileSet,
  trajectory: FileTrajectory,
  clock: PhaseClock,
  timeouts: PhaseTimeouts,
  placed: Condition,
): Promise<SandboxRun> {
  let sandbox: TrialSandbox | null = null;
  let outcome = NO_AGENT;
  let files: OutputFile[] = [];
  let error: TrialError | null = null;
  try {
    o.signal?.throwIfAborted();
    sandbox = await clock.run("create", () =>
      bounded(
        "create",
        timeouts.create,
        () =>
          o.provider.create({
            image: o.requirements?.image ?? o.image.ref,
            limits: o.task.spec.limits,
            network: o.task.spec.network,
            labels: containerLabels({ runId: o.runId, trialId: id, taskId: o.task.id }),
            requirements: o.requirements,
          }),
        (late) => void late.remove().catch(() => {}),
      ),
    );
    const box = sandbox;
    o.signal?.throwIfAborted();
    await clock.run("copyIn", () =>
      bounded("copyIn", timeouts.copyIn, () =>
        box.putFiles(
          SANDBOX_WORKDIR,
          fileSet.files.map((f) => ({ path: f.path, bytes: f.read() })),
        ),
      ),
    );
    o.signal?.throwIfAborted();
    outcome = await clock.run("agent", () => agentPhase(o, box, trajectory, timeouts.agentGrace, placed));
    error = await diskFullOr(box, outcome.error);
    // Every process ends before the outputs are read: nothing of the agent writes during copy-out.
    await clock.run("stop", () => bounded("stop", timeouts.stop, () => box.stop()));
    if (error?.kind !== "cancelled")
      files = await clock.run("copyOut", () =>
        bounded("copyOut", timeouts.copyOut, () => box.collectOutputs(o.task.spec.outputs)),
      );
  } catch (err) {
    if (o.signal?.aborted) error = cancelledError(o.signal);
    else error ??= sandboxPhaseError(phaseOf(clock), err);
  } finally {
    const box = sandbox;
    if (box)
      await clock.run("remove", () => bounded("remove", timeouts.remove, () => box.remove())).catch(() => {});
  }
  return { outcome, files, error };
}

/** The last phase that started (the one an error came from). */
function phaseOf(clock: PhaseClock): "create" | "copyIn" | "stop" | "copyOut" {
  const ran = Object.keys(clock.ordered());
  const last = ran[ran.length - 1];
  return last === "copyIn" || last === "stop" || last === "copyOut" ? last : "create";
}
