// The inline form of the trial lifecycle: the task as a conversation with a ChatModel (no tools, no
// sandbox, data inline), the last reply parsed into output files, verified and recorded by the
// lifecycle like a sandboxed trial's (form "inline"). runInlineTrial never throws.
import type { ChatModel, ResolvedAgentConfig } from "../agents/index.ts";
import type { ProjectPaths } from "../project.ts";
import type { PhaseBounds, TrialRecord } from "../record/index.ts";
import { type Condition, inlineFileSet, type LoadedTask, parseInlineReply, sha256 } from "../task/index.ts";
import { trialBudget } from "./budget.ts";
import { converse } from "./converse.ts";
import { trialId } from "./ids.ts";
import { type FormEnv, type FormRun, type LifecycleForm, runLifecycle } from "./lifecycle.ts";
import { noSandboxProvenance, recordTask } from "./record-parts.ts";
import { defaultVerify } from "./verify-phase.ts";

export interface InlineTrialOptions {
  paths: ProjectPaths;
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
  /** Phase bounds other than the defaults (here: the verifier's). */
  phases?: Partial<PhaseBounds>;
  /** Pins the retry jitter (tests). */
  random?: () => number;
}

export interface InlineTrialResult {
  record: TrialRecord;
  /** The text of each reply (capped), one per turn answered. */
  replies: string[];
}

/** The conversation as a form of the lifecycle; `replies` holds what it was answered once it ran. */
export function inlineForm(o: InlineTrialOptions): LifecycleForm & { replies: string[] } {
  const form = {
    name: "inline" as const,
    replies: [] as string[],
    async execute(env: FormEnv): Promise<FormRun> {
      const { task, condition, config } = o;
      env.trajectory.append({
        type: "note",
        kind: "start",
        form: "inline",
        agent: config.name,
        provider: config.provider,
        model: config.model,
        condition,
        system: o.system,
      });
      const conversation = await env.clock.run("agent", () =>
        converse({
          config,
          model: o.model,
          system: o.system,
          turns: o.turns,
          trajectory: env.trajectory,
          timeoutSec: env.budget.wallClockSec,
          signal: env.signal,
          random: o.random,
        }),
      );
      const { replies, usage, error } = conversation;
      form.replies = replies;
      const last = replies.length === o.turns.length ? replies.at(-1)! : "";
      const outputs = parseInlineReply(task, last);
      const files = outputs.map((out) => ({
        record: {
          path: out.path,
          status: out.status,
          ...(out.bytes ? { size: out.bytes.length, sha256: sha256(out.bytes) } : {}),
          ...(out.reason ? { reason: out.reason } : {}),
        },
        ...(out.bytes ? { bytes: out.bytes } : {}),
      }));
      const fileSet = inlineFileSet(task, condition, o.artefact);
      return {
        outcome: {
          stopReason: error ? (error.kind === "timeout" ? "timeout" : "error") : "finish",
          usage,
          error,
          artefactListed: condition !== "-A",
          artefactOpened: condition === "-A" ? null : true,
          retrospective: null,
        },
        files,
        targets: [{ task, folder: null, outputs }],
        error,
        fileSet: { digest: fileSet.digest, artefactDigest: fileSet.artefactDigest },
        provenance: noSandboxProvenance("inline"),
        placed: condition,
        prospective: null,
      };
    },
  };
  return form;
}

/** Runs one inline trial and appends its record to runDir/trials.jsonl. */
export async function runInlineTrial(o: InlineTrialOptions): Promise<InlineTrialResult> {
  const attempt = o.attempt ?? 1;
  const form = inlineForm(o);
  const record = await runLifecycle({
    identity: {
      runId: o.runId,
      runDir: o.runDir,
      trialId: trialId(o.task.id, o.condition, o.config.name, o.index, attempt),
      index: o.index,
      attempt,
      task: recordTask(o.task),
      condition: o.condition,
      form: "inline",
      agent: { name: o.config.name, digest: o.config.digest, harness: "inline", model: o.config.model },
    },
    form,
    // The reply is the model's: its outputs go through the killable verifier like a sandboxed trial's.
    verify: defaultVerify(o.paths),
    budget: trialBudget({ limits: o.task.spec.limits, agent: o.config, phases: o.phases, sandbox: false }),
    signal: o.signal,
  });
  return { record, replies: form.replies };
}
