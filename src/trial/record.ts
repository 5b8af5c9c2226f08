// The TrialRecord: one line of runs/<run>/trials.jsonl per trial, versioned, the on-disk contract.
import { z } from "zod";
import { Condition } from "../task/schema.ts";
import { Verdict } from "../verify/verdict.ts";

export const TRIAL_RECORD_VERSION = 1;

export const PhaseName = z.enum(["create", "copyIn", "agent", "copyOut", "remove", "verify"]);

export const PhaseTiming = z.object({
  startedAt: z.iso.datetime(),
  finishedAt: z.iso.datetime(),
  durationMs: z.number().nonnegative(),
  error: z.string().optional(),
});

export const Usage = z.object({
  inputTokens: z.number().int().nonnegative().default(0),
  outputTokens: z.number().int().nonnegative().default(0),
  cacheReadTokens: z.number().int().nonnegative().default(0),
  cacheWriteTokens: z.number().int().nonnegative().default(0),
  modelCalls: z.number().int().nonnegative().default(0),
  /** USD; null when the configuration declares no pricing. */
  costUsd: z.number().nonnegative().nullable().default(null),
});

export const StopReason = z.enum([
  "finish", // the agent said it was done (or the oracle/noop completed)
  "max-turns",
  "token-budget",
  "timeout",
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

/** `agent`: the agent's own failure (counted); `infra`: Docker, provider outage, sandbox timeout (never counted). */
export const TrialError = z.object({
  class: z.enum(["agent", "infra"]),
  kind: z.string(),
  message: z.string(),
});

export const TrialRecord = z.object({
  recordVersion: z.literal(TRIAL_RECORD_VERSION),
  runId: z.string(),
  trialId: z.string(),
  /** 0-based index of the trial within its cell. */
  index: z.number().int().nonnegative(),
  /** 1 for the first attempt; infra errors are retried with a new attempt. */
  attempt: z.number().int().positive().default(1),
  task: z.object({
    id: z.string(),
    digests: z.object({ task: z.string(), instruction: z.string(), environment: z.string() }),
  }),
  condition: Condition,
  /** sha256 of the artefact or variant placed; null under -A. */
  artefactDigest: z.string().nullable(),
  fileSetDigest: z.string(),
  agent: z.object({
    name: z.string(),
    digest: z.string(),
    harness: z.string(),
    model: z.string().nullable().default(null),
  }),
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
  /** What produced the record: kgate, the sandbox image, the harness; null on older records. */
  provenance: z
    .object({
      kgateVersion: z.string(),
      sandboxImage: z.string().nullable(),
      sandboxBase: z.string().nullable(),
      harnessVersion: z.string().nullable(),
    })
    .nullable()
    .default(null),
});

export type PhaseName = z.infer<typeof PhaseName>;
export type PhaseTiming = z.infer<typeof PhaseTiming>;
export type Usage = z.infer<typeof Usage>;
export type StopReason = z.infer<typeof StopReason>;
export type CollectedOutput = z.infer<typeof CollectedOutput>;
export type TrialError = z.infer<typeof TrialError>;
export type TrialRecord = z.infer<typeof TrialRecord>;

export const ZERO_USAGE: Usage = Usage.parse({});
