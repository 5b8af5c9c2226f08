// The TrialRecord: one line of runs/<run>/trials.jsonl per trial, versioned, the on-disk contract.
// Records of the three forms (sandbox, inline, session) share it. Version 1 (free-string error kinds,
// no provenance) and version 2 (phase errors as bare messages) are read and upgraded on the way in.
import { z } from "zod";
import { TrialBudget } from "./budget.ts";
import { Condition } from "./condition.ts";
import { legacyError, TrialError, trialError } from "./failure.ts";
import { MonitorOutcome } from "./monitor.ts";
import { Usage } from "./usage.ts";
import { Verdict } from "./verdict.ts";

export const TRIAL_RECORD_VERSION = 3;

export const PhaseName = z.enum(["create", "copyIn", "agent", "stop", "copyOut", "remove", "verify"]);

export const PhaseTiming = z.object({
  startedAt: z.iso.datetime(),
  finishedAt: z.iso.datetime(),
  durationMs: z.number().nonnegative(),
  /** Why the phase failed, of the closed taxonomy (the trial's error unless the phase was cleanup). */
  error: TrialError.optional(),
});

export const StopReason = z.enum([
  "finish", // the agent said it was done (or the oracle/noop completed)
  "max-turns",
  "token-budget",
  "timeout",
  "cancelled",
  "error",
]);

export const CollectedOutput = z.object({
  path: z.string(),
  status: z.enum(["collected", "missing", "rejected"]),
  size: z.number().int().nonnegative().optional(),
  sha256: z.string().optional(),
  /** Why an output was rejected or missing (traversal, link outside, over the size cap, ...). */
  reason: z.string().optional(),
});

/** What produced a record, so a result can be trusted or refused later. */
export const Provenance = z.object({
  kgateVersion: z.string(),
  /** The sandbox provider and the host it ran on (`docker`, `local` or the DOCKER_HOST endpoint). */
  sandboxProvider: z.string().nullable().default(null),
  host: z.string().nullable().default(null),
  /** Image id (sha256:...) the container ran, and the base it was built on. */
  sandboxImage: z.string().nullable().default(null),
  sandboxBase: z.string().nullable().default(null),
  /** The installed harness's CLI version (e.g. `@anthropic-ai/claude-code@2.1.3`), or kgate's loop revision. */
  harnessVersion: z.string().nullable().default(null),
  /** How the sandbox's writable folders were capped (`tmpfs-volume`) and at how many MiB each. */
  diskCap: z.object({ mechanism: z.string(), mb: z.number().int().positive() }).nullable().default(null),
});

/** The form of a trial: an agent in a container, one conversation without tools, or N tasks in one sandbox. */
export const TrialForm = z.enum(["sandbox", "inline", "session"]);

const TaskDigests = z.object({ task: z.string(), instruction: z.string(), environment: z.string() });

/** One task of a session (an exam's shared sandbox): its folder there and its own verdict. */
export const SessionTask = z.object({
  id: z.string(),
  digests: TaskDigests,
  /** Its folder in the work directory (`task-<k>`); its outputs are the record's under that folder. */
  folder: z.string(),
  verdict: Verdict,
});

export const SessionOutcome = z.object({
  /** The unit the session ran for (an exam's key). */
  key: z.string(),
  tasks: z.array(SessionTask),
});

const RecordV3 = z.object({
  recordVersion: z.literal(TRIAL_RECORD_VERSION),
  runId: z.string(),
  trialId: z.string(),
  /** 0-based index of the trial within its cell. */
  index: z.number().int().nonnegative(),
  /** 1 for the first attempt; retried failures get a new attempt. */
  attempt: z.number().int().positive().default(1),
  /** The task; a session's is `session` with digests over its tasks' (each task in `session`). */
  task: z.object({ id: z.string(), digests: TaskDigests }),
  condition: Condition,
  /** `sandbox`: an agent in a container; `inline`: one conversation without tools (probes); `session`: several tasks in one sandbox (exams). */
  form: TrialForm.default("sandbox"),
  /** sha256 of the artefact or variant placed; null under -A. */
  artefactDigest: z.string().nullable(),
  fileSetDigest: z.string(),
  agent: z.object({
    name: z.string(),
    digest: z.string(),
    harness: z.string(),
    model: z.string().nullable().default(null),
  }),
  provenance: Provenance.nullable().default(null),
  startedAt: z.iso.datetime(),
  finishedAt: z.iso.datetime(),
  phases: z.partialRecord(PhaseName, PhaseTiming),
  /** The limits the trial ran under, computed once at its start; null in records older than this field. */
  budget: TrialBudget.nullable().default(null),
  /**
   * What the trial's model calls were charged: the provider's reported usage where it reached kgate,
   * each other call at its reservation (Usage.callsChargedAtReservation); the token budget, the cost
   * ceiling and reports count this.
   */
  usage: Usage,
  /**
   * The usage the provider reported, over the calls where it reached kgate (installed harnesses);
   * null when not tracked apart (the agent saw every call's usage, or a record older than this field).
   */
  reportedUsage: Usage.nullable().default(null),
  /** The judges' tokens and cost, summed over the judge criteria of the verdict(s); null when none was asked. */
  judgeUsage: Usage.nullable().default(null),
  stopReason: StopReason,
  outputs: z.array(CollectedOutput),
  verdict: Verdict,
  error: TrialError.nullable(),
  /** Path of the trajectory file, relative to the run directory. */
  trajectory: z.string().nullable(),
  /** Did the harness list the artefact (reference listing or skill) to the agent? null when unknown. */
  artefactListed: z.boolean().nullable().default(null),
  /** Under +A / variant: did the agent open the artefact? null when unknown or -A. */
  artefactOpened: z.boolean().nullable().default(null),
  /** Did the artefact's canary GUID appear in a -A trajectory or output? null when not applicable. */
  canaryLeak: z.boolean().nullable().default(null),
  monitor: MonitorOutcome.nullable().default(null),
  /** A session's tasks with their verdicts (the record's verdict combines them); null for the other forms. */
  session: SessionOutcome.nullable().default(null),
});

/** A version-1 line, upgraded: the error into the taxonomy, a cancelled trial's stop reason. */
function upgradeV1(v: Record<string, unknown>): Record<string, unknown> {
  const error = v.error ? legacyError(v.error as Record<string, string>) : null;
  const stopReason = error?.kind === "cancelled" ? "cancelled" : v.stopReason;
  return { ...v, recordVersion: 2, error, stopReason };
}

/**
 * A version-2 line, upgraded: a phase's bare message becomes the trial's error when it is that error,
 * else the sandbox's (only the sandbox phases raised errors there): `sandbox-timeout` for an overrun.
 */
function upgradeV2(v: Record<string, unknown>): Record<string, unknown> {
  const error = (v.error ?? null) as TrialError | null;
  const phases = (v.phases ?? {}) as Record<string, Record<string, unknown>>;
  const upgraded = Object.fromEntries(
    Object.entries(phases).map(([name, timing]) => {
      const message = timing?.error;
      if (typeof message !== "string") return [name, timing];
      const kind = /phase did not finish within/.test(message) ? "sandbox-timeout" : "sandbox";
      const phaseError = error?.message.includes(message) ? error : trialError(kind, message);
      return [name, { ...timing, error: phaseError }];
    }),
  );
  return { ...v, recordVersion: TRIAL_RECORD_VERSION, phases: upgraded };
}

function upgrade(value: unknown): unknown {
  let v = value as Record<string, unknown> | null;
  if (!v || typeof v !== "object") return value;
  if (v.recordVersion === 1) v = upgradeV1(v);
  if (v.recordVersion === 2) v = upgradeV2(v);
  return v;
}

export const TrialRecord = z.preprocess(upgrade, RecordV3);

export type PhaseName = z.infer<typeof PhaseName>;
export type PhaseTiming = z.infer<typeof PhaseTiming>;
export type StopReason = z.infer<typeof StopReason>;
export type CollectedOutput = z.infer<typeof CollectedOutput>;
export type Provenance = z.infer<typeof Provenance>;
export type TrialRecord = z.infer<typeof RecordV3>;
export type TrialForm = z.infer<typeof TrialForm>;
export type SessionTask = z.infer<typeof SessionTask>;
export type SessionOutcome = z.infer<typeof SessionOutcome>;

/**
 * What a trial cost (USD): the agent's and its judges'. Without judges, the agent's as recorded (null
 * when unpriced); with them, null when a part that made model calls has no prices (a part without
 * calls, such as the oracle agent's, adds nothing).
 */
export function trialCostUsd(record: Pick<TrialRecord, "usage" | "judgeUsage">): number | null {
  if (!record.judgeUsage) return record.usage.costUsd;
  let total = 0;
  for (const part of [record.usage, record.judgeUsage]) {
    if (part.costUsd !== null) total += part.costUsd;
    else if (part.modelCalls > 0) return null;
  }
  return total;
}
