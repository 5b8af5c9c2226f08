// The one record builder of every trial form (sandbox, inline, session): the agent's outcome, the
// outputs saved beside the record, the canary check, and the TrialRecord itself, validated (a record
// that fails validation is kept as `internal`). Also the record of a runner that threw.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { kgateVersion } from "../package-info.ts";
import {
  type Condition,
  internalError,
  type PhaseName,
  type PhaseTiming,
  type ProspectiveOutcome,
  type Provenance,
  type RetrospectiveOutcome,
  type SessionOutcome,
  type StopReason,
  TRIAL_RECORD_VERSION,
  type TrialBudget,
  type TrialError,
  type TrialForm,
  TrialRecord,
  trialError,
  UNVERIFIED,
  type Usage,
  type Verdict,
  ZERO_USAGE,
} from "../record/index.ts";
import type { OutputFile } from "../sandbox/index.ts";
import type { LoadedTask } from "../task/index.ts";
import { trialDirOf } from "./ids.ts";
import { appendTrialRecord } from "./records.ts";
import type { FileTrajectory } from "./trajectory.ts";

export interface TrialOutcome {
  stopReason: StopReason;
  /** What the agent's model calls were charged. */
  usage: Usage;
  /** The usage the provider reported, where the agent tracks it apart (an installed harness's relay). */
  reportedUsage?: Usage | null;
  error: TrialError | null;
  artefactOpened: boolean | null;
  artefactListed: boolean | null;
  /** The monitoring questions asked after the agent, when asked. */
  retrospective: RetrospectiveOutcome | null;
}

/** An outcome before (or without) the agent: nothing spent, nothing opened. */
export const NO_AGENT: TrialOutcome = {
  stopReason: "error",
  usage: ZERO_USAGE,
  error: null,
  artefactOpened: null,
  artefactListed: null,
  retrospective: null,
};

/** Who a record is of: the run, the attempt, the task (or a session's), the condition and the agent. */
export interface TrialIdentity {
  runId: string;
  /** runs/<run-id>: trials.jsonl and trials/<trialId>/ go here. */
  runDir: string;
  trialId: string;
  /** 0-based index of the trial within its cell. */
  index: number;
  attempt: number;
  task: TrialRecord["task"];
  condition: Condition;
  form: TrialForm;
  agent: TrialRecord["agent"];
}

/** One attempt of one task, as the engine's jobs carry it (the trial engine's and the probes'). */
export interface TaskAttempt {
  runId: string;
  runDir: string;
  trialId: string;
  index: number;
  attempt: number;
  task: LoadedTask;
  condition: Condition;
}

/** A loaded task as a record names it. */
export function recordTask(task: LoadedTask): TrialRecord["task"] {
  const { task: digest, instruction, environment } = task.digests;
  return { id: task.id, digests: { task: digest, instruction, environment } };
}

export function saveOutputs(trialDir: string, files: readonly OutputFile[]): void {
  for (const file of files) {
    if (!file.bytes) continue;
    const target = path.join(trialDir, "outputs", ...file.record.path.split("/"));
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, file.bytes);
  }
}

/** Did the task's canary GUID appear in a -A trial's trajectory or outputs? null when not applicable. */
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

/** Provenance of a trial that ran no sandbox (inline): kgate's version and the harness. */
export function noSandboxProvenance(harnessVersion: string | null): Provenance {
  return {
    kgateVersion: kgateVersion(),
    sandboxProvider: null,
    host: null,
    sandboxImage: null,
    sandboxBase: null,
    harnessVersion,
    diskCap: null,
  };
}

export interface RecordParts extends TrialIdentity {
  provenance: Provenance | null;
  startedAt: Date;
  phases: Partial<Record<PhaseName, PhaseTiming>>;
  /** The budget the trial ran under; null when it never started (a crashed runner). */
  budget: TrialBudget | null;
  /** The condition's file set as placed (its digest and the artefact's), null when none was made. */
  fileSet: { digest: string; artefactDigest: string | null } | null;
  outcome: TrialOutcome;
  files: readonly OutputFile[];
  verdict: Verdict;
  error: TrialError | null;
  /** Path of the trajectory file, relative to the run directory. */
  trajectory: string | null;
  canaryLeak: boolean | null;
  /** The prospective choice made before a -A trial, when asked. */
  prospective?: ProspectiveOutcome | null;
  session?: SessionOutcome | null;
  /** What the judges of judge criteria cost (null: none was asked). */
  judgeUsage?: Usage | null;
}

/** The validated record of a trial of any form; outputs are saved beside it. Never throws. */
export function buildRecord(p: RecordParts): TrialRecord {
  const raw = {
    recordVersion: TRIAL_RECORD_VERSION,
    runId: p.runId,
    trialId: p.trialId,
    index: p.index,
    attempt: p.attempt,
    task: p.task,
    condition: p.condition,
    form: p.form,
    artefactDigest: p.fileSet?.artefactDigest ?? null,
    fileSetDigest: p.fileSet?.digest ?? "",
    agent: p.agent,
    provenance: p.provenance,
    startedAt: p.startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    phases: p.phases,
    budget: p.budget,
    usage: p.outcome.usage,
    reportedUsage: p.outcome.reportedUsage ?? null,
    judgeUsage: p.judgeUsage ?? null,
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
        ? { prospective: p.prospective ?? null, retrospective: p.outcome.retrospective }
        : null,
    session: p.session ?? null,
  };
  try {
    saveOutputs(trialDirOf(p.runDir, p.trialId), p.files);
    return TrialRecord.parse(raw);
  } catch (err) {
    // Something of kgate's own produced a record that does not validate: keep the trial as internal.
    return TrialRecord.parse({
      ...raw,
      usage: { ...ZERO_USAGE, ...sane(raw.usage) },
      reportedUsage: raw.reportedUsage ? { ...ZERO_USAGE, ...sane(raw.reportedUsage) } : null,
      judgeUsage: raw.judgeUsage ? { ...ZERO_USAGE, ...sane(raw.judgeUsage) } : null,
      phases: {},
      outputs: [],
      verdict: UNVERIFIED,
      stopReason: "error",
      error: internalError(err),
      monitor: null,
      session: null,
    });
  }
}

/** Usage counts as a record can hold them (a provider's report is not trusted to be finite). */
function sane(usage: Usage): Partial<Usage> {
  return Object.fromEntries(
    Object.entries(usage).filter(
      ([, v]) => v === null || (typeof v === "number" && Number.isFinite(v) && v >= 0),
    ),
  );
}

/** Appends the record to the run's trials.jsonl; a failed write is the record's `evidence-write` error. */
export function writeRecord(runDir: string, record: TrialRecord): TrialRecord {
  try {
    appendTrialRecord(runDir, record);
  } catch (err) {
    record.error ??= trialError("evidence-write", `trials.jsonl: ${(err as Error).message}`);
  }
  return record;
}

/** The record of an attempt whose runner threw: kgate's own bug, kept as an `internal` error and written. */
export function crashRecordOf(
  job: TaskAttempt,
  form: TrialForm,
  agent: TrialRecord["agent"],
  err: unknown,
): TrialRecord {
  const identity: TrialIdentity = {
    runId: job.runId,
    runDir: job.runDir,
    trialId: job.trialId,
    index: job.index,
    attempt: job.attempt,
    task: recordTask(job.task),
    condition: job.condition,
    form,
    agent,
  };
  const now = new Date();
  const record = buildRecord({
    ...identity,
    provenance: noSandboxProvenance(null),
    startedAt: now,
    phases: {},
    budget: null,
    fileSet: null,
    outcome: NO_AGENT,
    files: [],
    verdict: UNVERIFIED,
    error: internalError(err),
    trajectory: null,
    canaryLeak: null,
  });
  return writeRecord(identity.runDir, record);
}

/** The agent's own stop reason, unless something not of its doing ended the trial. */
function stopReasonOf(error: TrialError | null, agent: StopReason): StopReason {
  if (!error || error.owner === "agent" || error.owner === "verifier" || error.owner === "judge")
    return agent;
  return error.kind === "cancelled" ? "cancelled" : "error";
}
