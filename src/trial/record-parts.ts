// The parts of a trial's record: the agent's outcome, outputs saved beside the record, the canary
// check, provenance, and the record itself (validated; a record that fails validation becomes internal).
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Condition } from "../model/index.ts";
import {
  internalError,
  type PhaseName,
  type PhaseTiming,
  type ProspectiveOutcome,
  type Provenance,
  type RetrospectiveOutcome,
  type StopReason,
  TRIAL_RECORD_VERSION,
  type TrialError,
  TrialRecord,
  UNVERIFIED,
  type Usage,
  type Verdict,
} from "../model/index.ts";
import { kgateVersion } from "../package-info.ts";
import type { OutputFile } from "../sandbox/index.ts";
import { type ConditionFileSet, diskMbOf, type LoadedTask } from "../task/index.ts";
import { trialDirOf } from "./ids.ts";
import type { TrialOptions } from "./run-trial.ts";
import type { FileTrajectory } from "./trajectory.ts";

export interface TrialOutcome {
  stopReason: StopReason;
  usage: Usage;
  error: TrialError | null;
  artefactOpened: boolean | null;
  artefactListed: boolean | null;
  /** The monitoring probes asked after the agent, when asked. */
  retrospective: RetrospectiveOutcome | null;
}

export function saveOutputs(trialDir: string, files: readonly OutputFile[]): void {
  for (const file of files) {
    if (!file.bytes) continue;
    const target = path.join(trialDir, "outputs", ...file.record.path.split("/"));
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, file.bytes);
  }
}

export function canaryLeak(
  task: LoadedTask,
  condition: Condition,
  trajectory: FileTrajectory | null,
  files: readonly OutputFile[],
): boolean | null {
  const canary = task.artefact.canary;
  if (condition !== "-A" || !canary) return null;
  let trace = "";
  try {
    trace = trajectory?.text() ?? "";
  } catch {
    trace = "";
  }
  const texts = [trace, ...files.map((f) => f.bytes?.toString("utf8") ?? "")];
  return texts.some((t) => t.toLowerCase().includes(canary));
}

export function provenanceOf(
  o: Pick<TrialOptions, "agent" | "provider" | "image" | "requirements" | "task">,
): Provenance {
  return {
    kgateVersion: kgateVersion(),
    sandboxProvider: o.provider.name,
    host: o.provider.host,
    sandboxImage: o.requirements?.image ?? o.image.id,
    sandboxBase: o.image.base,
    harnessVersion: o.agent.revision ?? o.agent.harness,
    diskCap: o.provider.diskCap ? { mechanism: o.provider.diskCap, mb: diskMbOf(o.task.spec.limits) } : null,
  };
}

export interface RecordParts {
  options: TrialOptions;
  trialId: string;
  attempt: number;
  startedAt: Date;
  phases: Partial<Record<PhaseName, PhaseTiming>>;
  fileSet: ConditionFileSet | null;
  outcome: TrialOutcome;
  files: readonly OutputFile[];
  verdict: Verdict;
  error: TrialError | null;
  trajectory: string | null;
  canaryLeak: boolean | null;
  /** The prospective choice made before a -A trial, when asked. */
  prospective: ProspectiveOutcome | null;
}

/** The validated record of a trial; outputs are saved beside it. Never throws. */
export function buildRecord(p: RecordParts): TrialRecord {
  const o = p.options;
  const raw = {
    recordVersion: TRIAL_RECORD_VERSION,
    runId: o.runId,
    trialId: p.trialId,
    index: o.index,
    attempt: p.attempt,
    task: {
      id: o.task.id,
      digests: {
        task: o.task.digests.task,
        instruction: o.task.digests.instruction,
        environment: o.task.digests.environment,
      },
    },
    condition: o.condition,
    form: "sandbox" as const,
    artefactDigest: p.fileSet?.artefactDigest ?? null,
    fileSetDigest: p.fileSet?.digest ?? "",
    agent: { name: o.agent.name, digest: o.agent.digest, harness: o.agent.harness, model: o.agent.model },
    provenance: provenanceOf(o),
    startedAt: p.startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    phases: p.phases,
    usage: p.outcome.usage,
    stopReason: stopReasonOf(p.error, p.outcome.stopReason),
    outputs: p.files.map((f) => f.record),
    verdict: p.verdict,
    error: p.error,
    trajectory: p.trajectory,
    artefactListed: p.outcome.artefactListed,
    artefactOpened: p.outcome.artefactOpened,
    canaryLeak: p.canaryLeak,
    monitor:
      p.prospective || p.outcome.retrospective
        ? { prospective: p.prospective, retrospective: p.outcome.retrospective }
        : null,
  };
  try {
    saveOutputs(trialDirOf(o.runDir, p.trialId), p.files);
    return TrialRecord.parse(raw);
  } catch (err) {
    // Something of kgate's own produced a record that does not validate: keep the trial as internal.
    return TrialRecord.parse({
      ...raw,
      usage: { ...raw.usage },
      outputs: [],
      verdict: UNVERIFIED,
      stopReason: "error",
      error: internalError(err),
    });
  }
}

/** The agent's own stop reason, unless something not of its doing ended the trial. */
function stopReasonOf(error: TrialError | null, agent: StopReason): StopReason {
  if (!error || error.owner === "agent" || error.owner === "verifier") return agent;
  return error.kind === "cancelled" ? "cancelled" : "error";
}
