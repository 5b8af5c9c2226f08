// One trial end to end: fresh hardened sandbox, condition file set in, agent, declared outputs out,
// sandbox removed, verification on the host, one TrialRecord appended. Never throws to its caller.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Agent, AgentResult, SandboxRequirements } from "../agents/types.ts";
import type { ProjectPaths } from "../project.ts";
import {
  collectOutputs,
  containerLabels,
  DockerSandbox,
  ensureSandboxImage,
  type OutputFile,
  SANDBOX_WORKDIR,
  SandboxUnavailableError,
} from "../sandbox/index.ts";
import { type Condition, type ConditionFileSet, conditionFileSet, type LoadedTask } from "../task/index.ts";
import type { OutputForVerification } from "../verify/contract.ts";
import { UNVERIFIED, type Verdict } from "../verify/verdict.ts";
import { trialDirOf, trialId } from "./ids.ts";
import { bounded, DEFAULT_PHASE_TIMEOUTS, infraError, PhaseClock, type PhaseTimeouts } from "./phases.ts";
import { type StopReason, type TrialError, TrialRecord, type Usage, ZERO_USAGE } from "./record.ts";
import { appendTrialRecord } from "./records.ts";
import { FileTrajectory } from "./trajectory.ts";

/** Verification as the trial runner calls it (the verify library provides the real one). */
export type VerifyTrial = (task: LoadedTask, outputs: readonly OutputForVerification[]) => Promise<Verdict>;

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
  /** 1 for the first attempt; retries of infra failures count up. */
  attempt?: number;
  /** The sandbox image (from ensureSandboxImage); built or found when omitted. */
  image?: string;
  /** What the agent's prepare() asked for (derived image, binds, env, writable folders). */
  requirements?: SandboxRequirements;
  verify?: VerifyTrial;
  /** Cancels the trial (recorded as an infra error of kind `cancelled`). */
  signal?: AbortSignal;
  timeouts?: Partial<PhaseTimeouts>;
}

class AgentTimeoutError extends Error {
  override name = "AgentTimeoutError";
}

interface AgentOutcome {
  stopReason: StopReason;
  usage: Usage;
  error: TrialError | null;
  artefactOpened: boolean | null;
  artefactListed: boolean | null;
}

function cancelled(reason: unknown): TrialError {
  const message = reason instanceof Error ? reason.message : "the run was cancelled";
  return { class: "infra", kind: "cancelled", message };
}

/** Runs the agent under the task's wall-clock budget; an abort is a timeout (agent) or a cancel (infra). */
async function agentPhase(
  options: TrialOptions,
  sandbox: DockerSandbox,
  trajectory: FileTrajectory,
  grace: number,
): Promise<AgentOutcome> {
  const { task, condition, agent } = options;
  const limits = task.spec.limits;
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new AgentTimeoutError(`the agent did not finish within ${limits.timeoutSec} s`)),
    limits.timeoutSec * 1000,
  );
  const onCancel = () => controller.abort(options.signal?.reason);
  if (options.signal?.aborted) onCancel();
  else options.signal?.addEventListener("abort", onCancel, { once: true });
  let graceTimer: NodeJS.Timeout | undefined;
  const abandoned = new Promise<never>((_, reject) => {
    controller.signal.addEventListener("abort", () => {
      graceTimer = setTimeout(() => reject(controller.signal.reason), grace);
    });
  });
  try {
    const result: AgentResult = await Promise.race([
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
      }),
      abandoned,
    ]);
    return {
      stopReason: result.stopReason,
      usage: result.usage,
      error: result.error ?? null,
      artefactOpened: condition === "-A" ? null : (result.artefactOpened ?? null),
      artefactListed: result.artefactListed ?? null,
    };
  } catch (err) {
    const base = { usage: ZERO_USAGE, artefactOpened: null, artefactListed: null };
    const reason = controller.signal.aborted ? controller.signal.reason : undefined;
    if (reason instanceof AgentTimeoutError) {
      trajectory.append({ type: "error", text: reason.message });
      return {
        ...base,
        stopReason: "timeout",
        error: { class: "agent", kind: "timeout", message: reason.message },
      };
    }
    if (controller.signal.aborted) return { ...base, stopReason: "error", error: cancelled(reason) };
    const e = err as Error;
    trajectory.append({ type: "error", text: e.message });
    const kind = e instanceof SandboxUnavailableError ? "sandbox-unavailable" : "harness";
    return { ...base, stopReason: "error", error: { class: "infra", kind, message: e.message } };
  } finally {
    clearTimeout(timer);
    clearTimeout(graceTimer);
    options.signal?.removeEventListener("abort", onCancel);
  }
}

function saveOutputs(trialDir: string, files: readonly OutputFile[]): void {
  for (const file of files) {
    if (!file.bytes) continue;
    const target = path.join(trialDir, "outputs", ...file.record.path.split("/"));
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, file.bytes);
  }
}

function canaryLeak(
  task: LoadedTask,
  condition: Condition,
  trajectory: FileTrajectory | null,
  files: readonly OutputFile[],
): boolean | null {
  const canary = task.artefact.canary;
  if (condition !== "-A" || !canary) return null;
  const texts = [trajectory?.text() ?? "", ...files.map((f) => f.bytes?.toString("utf8") ?? "")];
  return texts.some((t) => t.toLowerCase().includes(canary));
}

/** Runs one trial and appends its record to runDir/trials.jsonl; errors are recorded, not thrown. */
export async function runTrial(options: TrialOptions): Promise<TrialRecord> {
  const { task, condition, agent, runId, runDir, index } = options;
  const attempt = options.attempt ?? 1;
  const timeouts = { ...DEFAULT_PHASE_TIMEOUTS, ...options.timeouts };
  const id = trialId(task.id, condition, agent.name, index, attempt);
  const trialDir = trialDirOf(runDir, id);
  const startedAt = new Date();
  const clock = new PhaseClock();
  let error: TrialError | null = null;
  let fileSet: ConditionFileSet | null = null;
  let trajectory: FileTrajectory | null = null;
  let sandbox: DockerSandbox | null = null;
  let outcome: AgentOutcome = {
    stopReason: "error",
    usage: ZERO_USAGE,
    error: null,
    artefactOpened: null,
    artefactListed: null,
  };
  let files: OutputFile[] = [];

  let step: "setup" | "image" | "create" | "copyIn" = "setup";
  try {
    fileSet = conditionFileSet(task, condition);
    trajectory = new FileTrajectory(path.join(trialDir, "trajectory.jsonl"));
    options.signal?.throwIfAborted();
    step = "image";
    const image = options.image ?? (await ensureSandboxImage(options.paths));
    step = "create";
    const created = await clock.run("create", () =>
      bounded(
        "create",
        timeouts.create,
        () =>
          DockerSandbox.create({
            image,
            limits: task.spec.limits,
            network: task.spec.network,
            labels: containerLabels({ runId, trialId: id, taskId: task.id }),
            requirements: options.requirements,
          }),
        (late) => void late.remove().catch(() => {}),
      ),
    );
    sandbox = created;
    options.signal?.throwIfAborted();
    step = "copyIn";
    const set = fileSet;
    await clock.run("copyIn", () =>
      bounded("copyIn", timeouts.copyIn, () =>
        created.putFiles(
          SANDBOX_WORKDIR,
          set.files.map((f) => ({ path: f.path, bytes: f.read() })),
        ),
      ),
    );
    options.signal?.throwIfAborted();
  } catch (err) {
    const message = (err as Error).message;
    if (options.signal?.aborted) error = cancelled(options.signal.reason);
    else if (step === "create" || step === "copyIn") error = infraError(step, err);
    else error = { class: "infra", kind: step, message };
  }

  if (sandbox && trajectory && !error) {
    const box = sandbox;
    const sink = trajectory;
    outcome = await clock.run("agent", () => agentPhase(options, box, sink, timeouts.agentGrace));
    error = outcome.error;
    try {
      files = await clock.run("copyOut", () =>
        bounded("copyOut", timeouts.copyOut, () => collectOutputs(box, task.spec.outputs)),
      );
      saveOutputs(trialDir, files);
    } catch (err) {
      error ??= options.signal?.aborted ? cancelled(options.signal.reason) : infraError("copyOut", err);
    }
  }
  // The container is removed while verification runs on the host; the record waits for both.
  const toRemove = sandbox;
  const removal = toRemove
    ? clock.run("remove", () => bounded("remove", timeouts.remove, () => toRemove.remove())).catch(() => {})
    : Promise.resolve();

  let verdict: Verdict = UNVERIFIED;
  if (options.verify && error?.class !== "infra") {
    const verify = options.verify;
    const given: OutputForVerification[] = files.map((f) => ({
      path: f.record.path,
      status: f.record.status,
      bytes: f.bytes,
      reason: f.record.reason,
    }));
    try {
      verdict = await clock.run("verify", () =>
        bounded("verify", timeouts.verify, () => verify(task, given)),
      );
    } catch (err) {
      verdict = { ...UNVERIFIED, reason: `verification failed: ${(err as Error).message}` };
      error ??= { class: "infra", kind: "verifier", message: (err as Error).message };
    }
  }

  await removal;
  const record = TrialRecord.parse({
    recordVersion: 1,
    runId,
    trialId: id,
    index,
    attempt,
    task: {
      id: task.id,
      digests: {
        task: task.digests.task,
        instruction: task.digests.instruction,
        environment: task.digests.environment,
      },
    },
    condition,
    artefactDigest: fileSet?.artefactDigest ?? null,
    fileSetDigest: fileSet?.digest ?? "",
    agent: { name: agent.name, digest: agent.digest, harness: agent.harness, model: agent.model },
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    phases: clock.ordered(),
    usage: outcome.usage,
    stopReason: error?.class === "infra" ? "error" : outcome.stopReason,
    outputs: files.map((f) => f.record),
    verdict,
    error,
    trajectory: trajectory ? path.relative(runDir, trajectory.file).split(path.sep).join("/") : null,
    artefactListed: outcome.artefactListed,
    artefactOpened: outcome.artefactOpened,
    canaryLeak: canaryLeak(task, condition, trajectory, files),
    provenance: null,
  } satisfies TrialRecord);
  try {
    appendTrialRecord(runDir, record);
  } catch (err) {
    record.error ??= { class: "infra", kind: "record-write", message: (err as Error).message };
  }
  return record;
}
