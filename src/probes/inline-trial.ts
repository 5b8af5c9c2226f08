// One inline trial: the task as a conversation with a ChatModel (no tools, no sandbox), the last
// reply parsed into output files, verified by the task's verifier; one ordinary TrialRecord (form
// "inline") appended to the run. Never throws to its caller.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import {
  type ChatMessage,
  type ChatModel,
  classifyError,
  ModelCallError,
  type ResolvedAgentConfig,
  UsageMeter,
  withRetry,
} from "../agents/index.ts";
import {
  type Condition,
  conditionFileSet,
  type InlineOutput,
  type LoadedTask,
  parseInlineReply,
  sha256,
} from "../task/index.ts";
import {
  appendTrialRecord,
  FileTrajectory,
  type PhaseName,
  type PhaseTiming,
  type TrialError,
  TrialRecord,
  trialDirOf,
  trialId,
} from "../trial/index.ts";
import { UNVERIFIED, type Verdict, verifyTrial } from "../verify/index.ts";

/** Characters of one reply kept in the trajectory and handed back to the caller. */
export const REPLY_TEXT_CAP = 256 * 1024;

export interface InlineTrialOptions {
  task: LoadedTask;
  condition: Condition;
  config: ResolvedAgentConfig;
  model: ChatModel;
  system: string;
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

function replyText(parts: ReadonlyArray<{ type: string; text?: string }>): string {
  const text = parts.map((p) => (p.type === "text" ? (p.text ?? "") : "")).join("");
  return text.length > REPLY_TEXT_CAP ? text.slice(0, REPLY_TEXT_CAP) : text;
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

/** Sends the turns one after another; stops at the first failed call. */
async function converse(
  o: InlineTrialOptions,
  meter: UsageMeter,
  trajectory: FileTrajectory,
  signal: AbortSignal,
): Promise<{ replies: string[]; error: TrialError | null }> {
  const messages: ChatMessage[] = [];
  const replies: string[] = [];
  for (const [i, turn] of o.turns.entries()) {
    messages.push({ role: "user", text: turn });
    trajectory.append({ type: "note", kind: "user", turn: i + 1, text: turn });
    try {
      const reply = await withRetry(
        () =>
          o.model.complete({
            system: o.system,
            messages,
            tools: [],
            maxOutputTokens: o.config.maxOutputTokens,
            temperature: o.config.temperature,
            signal,
          }),
        o.config.retry,
        { signal, random: o.random },
      );
      meter.add(reply.usage);
      const text = replyText(reply.parts);
      replies.push(text);
      messages.push({ role: "assistant", parts: [{ type: "text", text }] });
      trajectory.append({
        type: "model",
        turn: i + 1,
        model: reply.model,
        stopReason: reply.stopReason,
        usage: reply.usage,
        text,
      });
    } catch (err) {
      const error: TrialError = signal.aborted
        ? { class: "agent", kind: "timeout", message: `no reply within ${o.config.timeoutSec} s` }
        : err instanceof ModelCallError
          ? err.toTrialError()
          : { ...classifyError(err), message: (err as Error).message };
      trajectory.append({ type: "error", kind: error.kind, text: error.message });
      return { replies, error: { class: error.class, kind: error.kind, message: error.message } };
    }
  }
  return { replies, error: null };
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
  const meter = new UsageMeter(config.pricing ?? null);
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(),
    Math.min(config.timeoutSec, task.spec.limits.timeoutSec) * 1000,
  );
  const onCancel = () => controller.abort();
  o.signal?.addEventListener("abort", onCancel, { once: true });
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
  const { replies, error } = await converse(o, meter, trajectory, controller.signal).finally(() => {
    clearTimeout(timer);
    o.signal?.removeEventListener("abort", onCancel);
  });
  phases.agent = timing(agentStarted, error?.message);

  const last = replies.length === o.turns.length ? replies.at(-1)! : "";
  const outputs = parseInlineReply(task, last);
  saveOutputs(trialDir, outputs);
  let verdict: Verdict = UNVERIFIED;
  if (error?.class !== "infra") {
    const verifyStarted = new Date();
    verdict = await verifyTrial(task, outputs);
    phases.verify = timing(verifyStarted);
  }
  const canary = task.artefact.canary;
  const fileSet = conditionFileSet(task, condition);
  const record = TrialRecord.parse({
    recordVersion: 1,
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
    usage: meter.snapshot(),
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
    record.error ??= { class: "infra", kind: "record-write", message: (err as Error).message };
  }
  return { record, replies };
}
