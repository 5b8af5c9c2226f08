// What a calibration report shows, as a zod schema: the `--json` output of `kgate calibrate` and
// `kgate report`, and the only input of the Markdown, SVG and HTML writers.
import { z } from "zod";
import { Interval } from "../common/index.ts";

export const SUMMARY_VERSION = 1;

const Rate = z.number().min(0).max(1);
/** A pass rate's interval (Wilson): src/common's Interval with both bounds rates. */
const RateInterval = Interval.extend({ lo: Rate, hi: Rate });
export const Requirement = z.object({ op: z.enum([">=", "<="]), threshold: Rate });

/**
 * pass@k and pass^k at one k (docs/calibrate.md#passk-and-passk): of a cell, the unbiased
 * estimates over its valid trials; of an aggregate row, their mean over the cells with k or more.
 */
export const PassK = z.object({
  k: z.number().int().positive(),
  /** At least one of k trials passes: 1 - C(n - c, k) / C(n, k). */
  passAt: Rate,
  /** All k trials pass: C(c, k) / C(n, k). */
  passHat: Rate,
});
/** An aggregate row's pass@k and pass^k: the mean over `cells`, those with k or more valid trials. */
export const PooledPassK = PassK.extend({ cells: z.number().int().positive() });

/** A cell's trials the cost ceiling keeps from starting: each could cost more than the run has left. */
export const RefusedTrials = z.object({
  task: z.string(),
  /** The cell's label. */
  cell: z.string(),
  /** Trial indices, 0-based as in the trial ids. */
  trials: z.array(z.number().int().nonnegative()),
  /** The most one of them can cost. */
  worstCaseUsd: z.number().nonnegative(),
});

export const Budget = z.object({
  ceilingUsd: z.number().nonnegative().nullable(),
  spentUsd: z.number().nonnegative(),
  reservedUsd: z.number().nonnegative(),
  refused: z.array(RefusedTrials),
});

export const Counts = z.object({
  /** Valid trials the plan asked for (n; the cap is the most under sequential screening). */
  planned: z.number().int().nonnegative(),
  pass: z.number().int().nonnegative(),
  fail: z.number().int().nonnegative(),
  /** Infrastructure errors: shown, never counted in rates. */
  infra: z.number().int().nonnegative(),
  /** Trials without a verdict: shown, never counted in rates. */
  unverified: z.number().int().nonnegative(),
  /** Planned trials with no record yet (not those curtailment skipped). */
  missing: z.number().int().nonnegative(),
  /** Trials curtailment did not run: no outcome of them changes the task's decision (absent in older summaries). */
  curtailed: z.number().int().nonnegative().default(0),
  /** Planned trials not started because the cost ceiling holds them back (not in `missing`; absent in older summaries). */
  refused: z.number().int().nonnegative().default(0),
  /** pass + fail: the denominator of the rate. */
  runs: z.number().int().nonnegative(),
});

export const AttributionCounts = z.object({
  "default-convention": z.number().int().nonnegative(),
  /** Per perturbed variant name. */
  perturbed: z.record(z.string(), z.number().int().nonnegative()),
  format: z.number().int().nonnegative(),
  other: z.number().int().nonnegative(),
  /** Failed verdicts that carry no attribution. */
  unattributed: z.number().int().nonnegative(),
});

export const UsageTotals = z.object({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  cacheReadTokens: z.number().int().nonnegative(),
  cacheWriteTokens: z.number().int().nonnegative(),
  modelCalls: z.number().int().nonnegative(),
  /** USD over the trials whose configuration declares pricing. */
  costUsd: z.number().nonnegative(),
  /** Trials without a known cost. */
  costUnknown: z.number().int().nonnegative(),
});

export const Clause = z.object({
  cell: z.string(),
  requirement: Requirement,
  control: z.boolean(),
  text: z.string(),
  passes: z.number().int().nonnegative(),
  runs: z.number().int().nonnegative(),
  verdict: z.enum(["met", "not-met", "undecided"]),
  borderline: z.boolean(),
  /** Fixed n: valid trials short of n (the clause is then undecided unless missed whatever they show). */
  short: z.number().int().nonnegative().default(0),
  reason: z.string(),
});

export const CellSummary = z.object({
  key: z.string(),
  task: z.string(),
  spec: z.string(),
  label: z.string(),
  agent: z.string(),
  condition: z.string(),
  require: Requirement.nullable(),
  control: z.boolean(),
  counts: Counts,
  rate: Rate.nullable(),
  interval: RateInterval,
  /** pass@k and pass^k for k = 1..runs (absent in older summaries). */
  passK: z.array(PassK).default([]),
  clause: Clause.nullable(),
  attribution: AttributionCounts,
  usage: UsageTotals,
});

export const Decision = z.enum(["retain", "revise", "discard", "incomplete"]);

/**
 * A run whose deciding cells (those with a requirement) run scripted agents (oracle, noop): it checks
 * kgate's plumbing, not the task. `note` says so in words (reports, Table 1's notes).
 */
export const Plumbing = z.object({
  cells: z.array(z.string()),
  agents: z.array(z.string()),
  note: z.string(),
});

export const TaskSummary = z.object({
  id: z.string(),
  title: z.string(),
  gate: z.enum(["convention", "operator"]),
  decision: Decision,
  /** Clauses met by one trial: `retain (borderline: ...)`. Absent in older summaries. */
  borderline: z.array(z.string()).default([]),
  /** Decided by cells of scripted agents: a plumbing check, not evidence about the task (absent in older summaries). */
  plumbing: z.boolean().default(false),
  reasons: z.array(z.string()),
  notes: z.array(z.string()),
  usage: UsageTotals,
});

export const Aggregate = z.object({
  spec: z.string(),
  /** `all` tasks, or the `retained` ones only. */
  scope: z.enum(["all", "retained"]),
  tasks: z.number().int().nonnegative(),
  passes: z.number().int().nonnegative(),
  runs: z.number().int().nonnegative(),
  rate: Rate.nullable(),
  interval: RateInterval,
  /** The mean of the cells' pass@k and pass^k at each k some cell reaches (absent in older summaries). */
  passK: z.array(PooledPassK).default([]),
});

export const TrialRow = z.object({
  trialId: z.string(),
  task: z.string(),
  cell: z.string(),
  spec: z.string(),
  agent: z.string(),
  condition: z.string(),
  index: z.number().int().nonnegative(),
  attempt: z.number().int().positive(),
  outcome: z.enum(["pass", "fail", "infra", "unverified"]),
  /** Replaced by a later attempt of the same trial. */
  superseded: z.boolean(),
  attribution: z.string().nullable(),
  stopReason: z.string(),
  error: z.object({ kind: z.string(), owner: z.string(), message: z.string() }).nullable(),
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  cacheReadTokens: z.number().int().nonnegative().default(0),
  cacheWriteTokens: z.number().int().nonnegative().default(0),
  costUsd: z.number().nonnegative().nullable(),
  durationMs: z.number().nonnegative(),
  /** Relative to the run directory. */
  trajectory: z.string().nullable(),
  artefactOpened: z.boolean().nullable(),
  canaryLeak: z.boolean().nullable(),
  /** The verdict's partial score (the mean of its criteria by weight); null in older summaries. */
  score: z.number().min(0).max(1).nullable().default(null),
  /**
   * The verdict's criteria, passed or not; `weight` is a rubric criterion's weight, null for the
   * comparison with the reference. Empty in older summaries.
   */
  criteria: z
    .array(z.object({ name: z.string(), passed: z.boolean(), weight: z.number().positive().nullable() }))
    .default([]),
});

export const Spec = z.object({
  name: z.string(),
  agent: z.string(),
  condition: z.string(),
  require: Requirement.nullable(),
  control: z.boolean(),
});

/** The named agent configuration behind one column of Table 1. */
export const Configuration = z.object({
  /** The cell spec's name: the column of Table 1 and the cell label. */
  label: z.string(),
  condition: z.string(),
  agent: z.string(),
  model: z.string().nullable(),
  harness: z.string(),
  /** Harness versions the records name (none on records without provenance). */
  harnessVersions: z.array(z.string()),
  provider: z.string(),
  digest: z.string(),
});

export const Provenance = z.object({
  /** The kgate that wrote the report. */
  reportKgateVersion: z.string(),
  /** The kgate versions, sandbox images and bases the trial records name. */
  kgateVersions: z.array(z.string()),
  sandboxImages: z.array(z.string()),
  sandboxBases: z.array(z.string()),
  /** Records made before kgate recorded provenance. */
  recordsWithout: z.number().int().nonnegative(),
});

export const RunSummary = z.object({
  summaryVersion: z.literal(SUMMARY_VERSION),
  runId: z.string(),
  createdAt: z.string(),
  generatedAt: z.string(),
  mode: z.enum(["fixed", "sequential"]),
  n: z.number().int().positive(),
  /** The retain rule and the screening rule in words. */
  rule: z.array(z.string()),
  /** The columns of Table 1, in order. */
  specs: z.array(Spec),
  configurations: z.array(Configuration).default([]),
  provenance: Provenance.nullable().default(null),
  tasks: z.array(TaskSummary),
  cells: z.array(CellSummary),
  aggregates: z.array(Aggregate),
  trials: z.array(TrialRow),
  totals: z.object({
    trials: z.number().int().nonnegative(),
    pass: z.number().int().nonnegative(),
    fail: z.number().int().nonnegative(),
    infra: z.number().int().nonnegative(),
    unverified: z.number().int().nonnegative(),
    /** The latest attempt of each trial (what the counts count). */
    usage: UsageTotals,
    /** Every attempt, retried and superseded ones included: what the run spent. Null in older summaries. */
    spent: UsageTotals.nullable().default(null),
    decisions: z.record(Decision, z.number().int().nonnegative()),
  }),
  warnings: z.array(z.string()),
  /** What the figures do not show (retained-set intervals, per-task bounds): the report's notes. */
  caveats: z.array(z.string()).default([]),
  /**
   * The cost ceiling (--max-cost, kept in the plan; null: none), what the run spent (every attempt,
   * as charged against the ceiling) and still holds reserved, USD, and the trials the ceiling keeps
   * from starting. Absent in older summaries.
   */
  budget: Budget.optional(),
  /** Set when the run's deciding cells run scripted agents (absent in older summaries: null). */
  plumbing: Plumbing.nullable().default(null),
});

export type PassK = z.infer<typeof PassK>;
export type PooledPassK = z.infer<typeof PooledPassK>;
export type Counts = z.infer<typeof Counts>;
export type Budget = z.infer<typeof Budget>;
export type Plumbing = z.infer<typeof Plumbing>;
export type RefusedTrials = z.infer<typeof RefusedTrials>;
export type AttributionCounts = z.infer<typeof AttributionCounts>;
export type UsageTotals = z.infer<typeof UsageTotals>;
export type Clause = z.infer<typeof Clause>;
export type CellSummary = z.infer<typeof CellSummary>;
export type Decision = z.infer<typeof Decision>;
export type TaskSummary = z.infer<typeof TaskSummary>;
export type Aggregate = z.infer<typeof Aggregate>;
export type TrialRow = z.infer<typeof TrialRow>;
export type Spec = z.infer<typeof Spec>;
export type Configuration = z.infer<typeof Configuration>;
export type Provenance = z.infer<typeof Provenance>;
export type RunSummary = z.infer<typeof RunSummary>;
