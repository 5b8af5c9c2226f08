// The TrialRecord: one line of runs/<run>/trials.jsonl per trial, versioned, the on-disk contract.
// Version 1 records (free-string error kinds, no provenance) are read and upgraded on the way in.
import { z } from "zod";
import { Condition } from "./condition.ts";
import { legacyError, TrialError } from "./failure.ts";
import { MonitorOutcome } from "./monitor.ts";
import { Usage } from "./usage.ts";
import { Verdict } from "./verdict.ts";

export const TRIAL_RECORD_VERSION = 2;

export const PhaseName = z.enum(["create", "copyIn", "agent", "stop", "copyOut", "remove", "verify"]);

export const PhaseTiming = z.object({
  startedAt: z.iso.datetime(),
  finishedAt: z.iso.datetime(),
  durationMs: z.number().nonnegative(),
  error: z.string().optional(),
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

const RecordV2 = z.object({
  recordVersion: z.literal(TRIAL_RECORD_VERSION),
  runId: z.string(),
  trialId: z.string(),
  /** 0-based index of the trial within its cell. */
  index: z.number().int().nonnegative(),
  /** 1 for the first attempt; retried failures get a new attempt. */
  attempt: z.number().int().positive().default(1),
  task: z.object({
    id: z.string(),
    digests: z.object({ task: z.string(), instruction: z.string(), environment: z.string() }),
  }),
  condition: Condition,
  /** `sandbox`: an agent in a container; `inline`: one conversation without tools (probes). */
  form: z.enum(["sandbox", "inline"]).default("sandbox"),
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
  usage: Usage,
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
});

/** A version-1 line, upgraded: the error into the taxonomy, a cancelled trial's stop reason. */
function upgrade(value: unknown): unknown {
  const v = value as Record<string, unknown> | null;
  if (!v || typeof v !== "object" || v.recordVersion !== 1) return value;
  const error = v.error ? legacyError(v.error as Record<string, string>) : null;
  const stopReason = error?.kind === "cancelled" ? "cancelled" : v.stopReason;
  return { ...v, recordVersion: TRIAL_RECORD_VERSION, error, stopReason };
}

export const TrialRecord = z.preprocess(upgrade, RecordV2);

export type PhaseName = z.infer<typeof PhaseName>;
export type PhaseTiming = z.infer<typeof PhaseTiming>;
export type StopReason = z.infer<typeof StopReason>;
export type CollectedOutput = z.infer<typeof CollectedOutput>;
export type Provenance = z.infer<typeof Provenance>;
export type TrialRecord = z.infer<typeof RecordV2>;
