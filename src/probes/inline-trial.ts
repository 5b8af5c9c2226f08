// One inline trial: the task as a conversation with a ChatModel (no tools, no sandbox), the last
// reply parsed into output files, verified by the task's verifier; one ordinary TrialRecord (form
// "inline") appended to the run. Never throws to its caller.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { type ChatModel, type ResolvedAgentConfig, trialLimits } from "../agents/index.ts";
import {
  FAILURE_KINDS,
  type PhaseName,
  type PhaseTiming,
  TRIAL_RECORD_VERSION,
  TrialRecord,
  trialError,
} from "../model/index.ts";
import { projectPaths } from "../project.ts";
import {
  type Condition,
  type InlineOutput,
  inlineFileSet,
  type LoadedTask,
  parseInlineReply,
  sha256,
} from "../task/index.ts";
import {
  appendTrialRecord,
  defaultVerify,
  FileTrajectory,
  trialDirOf,
  trialId,
  verifyOutputs,
} from "../trial/index.ts";
import { UNVERIFIED, type Verdict } from "../verify/index.ts";
import { converse } from "./converse.ts";

/** The verifier's limit on one inline reply's outputs (as a sandboxed trial's default). */
const VERIFY_TIMEOUT_MS = 60_000;

export interface InlineTrialOptions {
  task: LoadedTask;
  condition: Condition;
  config: ResolvedAgentConfig;
  model: ChatModel;
  system: string;
  /** Under +A: the bytes rendered in place of the artefact (recorded by digest). */
  artefact?: Buffer;
  /** The user turns, in order; the reply to the last one is parsed for the outputs. */
  turns: readonly string[];
  runId: string;
  runDir: string;
  index: number;
  attempt?: number;
  signal?: AbortSignal;
  /** Pins the retry jitter (tests). */
  random?: () => number;
}

export interface InlineTrialResult {
  record: TrialRecord;
  /** The text of each reply (capped), one per turn answered. */
  replies: string[];
}

function timing(startedAt: Date, error?: string): PhaseTiming {
  const finishedAt = new Date();
  return {
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    durationMs: finishedAt.getTime() - startedAt.getTime(),
    ...(error ? { error } : {}),
  };
}

function saveOutputs(trialDir: string, outputs: readonly InlineOutput[]): void {
  for (const output of outputs) {
    if (!output.bytes) continue;
    const target = path.join(trialDir, "outputs", ...output.path.split("/"));
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, output.bytes);
  }
}

/** Runs one inline trial and appends its record to runDir/trials.jsonl. */
export async function runInlineTrial(o: InlineTrialOptions): Promise<InlineTrialResult> {
  const { task, condition, config } = o;
  const attempt = o.attempt ?? 1;
  const id = trialId(task.id, condition, config.name, o.index, attempt);
  const trialDir = trialDirOf(o.runDir, id);
  const trajectory = new FileTrajectory(path.join(trialDir, "trajectory.jsonl"));
  const startedAt = new Date();
  const phases: Partial<Record<PhaseName, PhaseTiming>> = {};
  trajectory.append({
    type: "note",
    kind: "start",
    form: "inline",
    agent: config.name,
    provider: config.provider,
    model: config.model,
    condition,
    system: o.system,
  });

  const agentStarted = new Date();
  const conversation = await converse({
    ...o,
    trajectory,
    timeoutSec: trialLimits(config, task.spec.limits).timeoutSec,
  });
  const { replies, usage } = conversation;
  let error = conversation.error;
  phases.agent = timing(agentStarted, error?.message);

  const last = replies.length === o.turns.length ? replies.at(-1)! : "";
  const outputs = parseInlineReply(task, last);
  saveOutputs(trialDir, outputs);
  let verdict: Verdict = UNVERIFIED;
  if (!error || FAILURE_KINDS[error.kind].counted) {
    const verifyStarted = new Date();
    // The reply is the model's: its outputs go through the killable verifier like a sandboxed trial's.
    const root = path.dirname(path.dirname(task.dir));
    const checked = await verifyOutputs(defaultVerify(projectPaths(root)), task, outputs, VERIFY_TIMEOUT_MS);
    verdict = checked.verdict;
    error ??= checked.error;
    phases.verify = timing(verifyStarted);
  }
  const canary = task.artefact.canary;
  const fileSet = inlineFileSet(task, condition, o.artefact);
  const record = TrialRecord.parse({
    recordVersion: TRIAL_RECORD_VERSION,
    runId: o.runId,
    trialId: id,
    index: o.index,
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
    form: "inline",
    artefactDigest: fileSet.artefactDigest,
    fileSetDigest: fileSet.digest,
    agent: { name: config.name, digest: config.digest, harness: "inline", model: config.model },
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    phases,
    usage,
    stopReason: error ? (error.kind === "timeout" ? "timeout" : "error") : "finish",
    outputs: outputs.map((out) => ({
      path: out.path,
      status: out.status,
      ...(out.bytes ? { size: out.bytes.length, sha256: sha256(out.bytes) } : {}),
      ...(out.reason ? { reason: out.reason } : {}),
    })),
    verdict,
    error,
    trajectory: path.relative(o.runDir, trajectory.file).split(path.sep).join("/"),
    artefactListed: condition !== "-A",
    artefactOpened: condition === "-A" ? null : true,
    canaryLeak: condition === "-A" && canary ? replies.some((r) => r.toLowerCase().includes(canary)) : null,
  });
  try {
    appendTrialRecord(o.runDir, record);
  } catch (err) {
    record.error ??= trialError("evidence-write", (err as Error).message);
  }
  return { record, replies };
}
