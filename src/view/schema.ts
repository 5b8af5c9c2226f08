// What the trajectory viewer shows, as zod schemas: the index of one or several runs (every trial
// as a row, the configurations, the pass rates per cell) and one trial's detail (verdict with its
// diff and attribution, outputs, the trajectory's events, probes' answers). The browser app reads
// exactly these shapes from data/runs.js and data/trial/<key>.js.
import { z } from "zod";

export const VIEW_DATA_VERSION = 2;

export const ViewTrial = z.object({
  /** File-name-safe key of the trial's detail file: `<run index>-<row index>`. */
  key: z.string(),
  run: z.string(),
  trialId: z.string(),
  task: z.string(),
  cell: z.string(),
  spec: z.string(),
  agent: z.string(),
  /** "frontier (frontier-model)": the configuration as the filter shows it. */
  configuration: z.string(),
  condition: z.string(),
  /** 0-based, as in the trial id. */
  index: z.number().int().nonnegative(),
  attempt: z.number().int().positive(),
  superseded: z.boolean(),
  outcome: z.enum(["pass", "fail", "infra", "unverified"]),
  attribution: z.string().nullable(),
  stopReason: z.string(),
  /** What the token budget counts: input + output + cache reads + cache writes. */
  tokens: z.number().int().nonnegative(),
  durationMs: z.number().nonnegative(),
  mustFail: z.boolean(),
});

export const ViewCell = z.object({
  task: z.string(),
  label: z.string(),
  spec: z.string(),
  condition: z.string(),
  passes: z.number().int().nonnegative(),
  runs: z.number().int().nonnegative(),
});

export const ViewRun = z.object({
  id: z.string(),
  createdAt: z.string(),
  mode: z.string(),
  configurations: z.array(
    z.object({
      label: z.string(),
      agent: z.string(),
      model: z.string().nullable(),
      harness: z.string(),
      provider: z.string(),
      digest: z.string(),
    }),
  ),
  cells: z.array(ViewCell),
  decisions: z.record(z.string(), z.string()),
  warnings: z.array(z.string()),
});

export const ViewIndex = z.object({
  viewDataVersion: z.literal(VIEW_DATA_VERSION),
  generatedAt: z.string(),
  /** The kgate that built this index. */
  kgateVersion: z.string(),
  /** Served by `kgate view`: the app re-reads the index every few seconds. */
  live: z.boolean(),
  /** Why the index shown is older than the run's files (a refresh that could not read them). */
  problems: z.array(z.string()),
  runs: z.array(ViewRun),
  trials: z.array(ViewTrial),
});

export const ViewEvent = z.object({
  at: z.string(),
  type: z.string(),
  turn: z.number().nullable(),
  /** Tool name, note kind or error kind. */
  name: z.string().nullable(),
  /** What the event says: a model's text, a tool call's input ("" when it has none), an output. */
  text: z.string(),
  isError: z.boolean(),
  /** A tool call's result, shown with the call (one row per call): its output and error flag. */
  result: z.object({ text: z.string(), isError: z.boolean() }).nullable(),
});

/** One row of the diff shown side by side (see diff-rows.ts). */
export const DiffRow = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("file"), text: z.string() }),
  z.object({ kind: z.literal("hunk"), text: z.string() }),
  z.object({ kind: z.literal("same"), text: z.string() }),
  z.object({ kind: z.literal("note"), text: z.string() }),
  z.object({ kind: z.literal("pair"), expected: z.string().nullable(), actual: z.string().nullable() }),
]);

export const ViewProbe = z.object({ question: z.string(), answer: z.string() });

export const TrialDetail = z.object({
  key: z.string(),
  trialId: z.string(),
  verdict: z.object({
    status: z.string(),
    reward: z.number(),
    score: z.number(),
    attribution: z.string().nullable(),
    agreement: z.record(z.string(), z.number()),
    reason: z.string().nullable(),
    diff: z.string().nullable(),
    /** The diff as line pairs, when it is the verifier's unified diff; null: show `diff` as it is. */
    diffRows: z.array(DiffRow).nullable(),
    criteria: z.array(
      z.object({
        name: z.string(),
        passed: z.boolean(),
        detail: z.string().nullable(),
        /** A rubric criterion's weight in the score; null for the comparison with the reference. */
        weight: z.number().nullable(),
        /** A judge criterion's judge: the criterion as it was given, the outputs read, verdict and reason. */
        judge: z
          .object({
            config: z.string(),
            model: z.string().nullable(),
            criterion: z.string(),
            reads: z.array(z.string()),
            verdict: z.string(),
            reason: z.string().nullable(),
            costUsd: z.number().nullable(),
          })
          .nullable(),
      }),
    ),
  }),
  error: z.string().nullable(),
  outputs: z.array(
    z.object({
      path: z.string(),
      status: z.string(),
      reason: z.string().nullable(),
      /** The collected file's text, capped (null when it was not collected or is not kept). */
      text: z.string().nullable(),
      /** Why no text is shown, or that it is cut. */
      note: z.string().nullable(),
    }),
  ),
  events: z.array(ViewEvent),
  probes: z.array(ViewProbe),
  /** Why the trajectory is shown in part or not at all (missing, cut at the size cap, bad lines). */
  problems: z.array(z.string()),
});

export type ViewTrial = z.infer<typeof ViewTrial>;
export type ViewCell = z.infer<typeof ViewCell>;
export type ViewRun = z.infer<typeof ViewRun>;
export type ViewIndex = z.infer<typeof ViewIndex>;
export type ViewEvent = z.infer<typeof ViewEvent>;
export type ViewProbe = z.infer<typeof ViewProbe>;
export type TrialDetail = z.infer<typeof TrialDetail>;
export type DiffRow = z.infer<typeof DiffRow>;
