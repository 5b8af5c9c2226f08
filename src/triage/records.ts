// The files of a triage run (runs/<run>/): triage.json (settings), phase0.jsonl, plans.jsonl and
// errors.jsonl, appended line by line as units and plans finish (src/common's torn-line-safe
// appendJsonLine); read back tolerating a torn last line.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { lineProblemText, readJsonLines } from "../common/index.ts";
import { TrialError } from "../record/index.ts";
import { Phase0Line } from "./phase0-file.ts";
import { Framing } from "./prompt.ts";

const Configuration = z.object({ name: z.string(), digest: z.string() });

export const TriageSettings = z.object({
  runId: z.string(),
  /** The item file the pool came from (project-relative) and the sha256 of its text; for gated tasks, `tasks/` and the sha256 of their digests. */
  pool: z.object({ name: z.string(), file: z.string(), digest: z.string() }),
  configuration: Configuration,
  model: z.string(),
  alphas: z.array(z.number().positive().max(1)).min(1),
  framings: z.array(Framing).min(1),
  ratios: z.array(z.number().min(0).max(1)).min(1),
  seed: z.number().int(),
  /** The output-token cap of a phase-0 unit. */
  unitCap: z.number().int().positive(),
  /** max_tokens of a plan reply. */
  planTokens: z.number().int().positive(),
  permutations: z.number().int().positive(),
  /**
   * `simulated`: phase 2 computed from phase 0 (U exactly, E as c_i <= a_i and y_i); `live`: the same,
   * plus regimes E and U run live (each planned unit again: E with its allocation as its token limit,
   * U as phase 0 ran it, capped at what is left of B).
   */
  phase2: z.enum(["simulated", "live"]),
  /** The budget re-solve variant: each planned item again with its allocation stated in its prompt. */
  resolve: z.boolean().default(false),
  kgateVersion: z.string(),
  createdAt: z.string(),
});
export type TriageSettings = z.infer<typeof TriageSettings>;

export const Phase0Record = Phase0Line.extend({
  unsolvable: z.boolean(),
  capped: z.boolean(),
  unit: z.object({
    /** `task`: a sandboxed trial; `inline`: the task's inline form, one model call. */
    kind: z.enum(["item", "task", "inline"]),
    pool: z.string().optional(),
    task: z.string().optional(),
    condition: z.string().optional(),
  }),
  /** What `cost` counts. */
  costKind: z.string(),
  inputTokens: z.number().int().nonnegative(),
  /** USD this run spent on the unit (a reused trial: 0); null without prices or in older records. */
  costUsd: z.number().nonnegative().nullable().default(null),
  stopReason: z.string(),
  answer: z.string(),
  reply: z.string(),
  configuration: Configuration,
  model: z.string(),
  kgateVersion: z.string(),
  finishedAt: z.string(),
});
export type Phase0Record = z.infer<typeof Phase0Record>;

const Reply = z.object({
  text: z.string(),
  outputTokens: z.number(),
  stopReason: z.string(),
  /** Tokens sent (0 in records made before it was kept). */
  inputTokens: z.number().default(0),
});
const Step = z.object({ id: z.string(), tokens: z.number() });

/** One planned unit run live: its limit, what it cost, and whether it scored. */
const LiveStep = z.object({ id: z.string(), limit: z.number(), cost: z.number(), correct: z.boolean() });

/** Planned units run again with their allocation as the limit: V, eta, regret, and each unit's run. */
const LiveResult = z.object({
  vE: z.number(),
  etaE: z.number().nullable(),
  regretE: z.number(),
  steps: z.array(
    LiveStep.extend({
      within: z.boolean(),
      stopReason: z.string().nullable().default(null),
      /** A task unit's trial (`live/<plan>/<trial id>`, relative to the run's folder); null for an item. */
      trial: z.string().nullable().default(null),
    }),
  ),
});

/** Regime U run live: each planned unit again as phase 0 ran it, capped at what was left of B. */
const LiveAdvisoryResult = z.object({
  vU: z.number(),
  etaU: z.number().nullable(),
  regretU: z.number(),
  steps: z.array(
    LiveStep.extend({
      /** It pushed the running total past B: scores 0 and is the last step. */
      truncated: z.boolean(),
      stopReason: z.string(),
      /** A task unit's trial (`live-u/<plan>/<trial id>`); null for an item or a unit not run. */
      trial: z.string().nullable(),
    }),
  ),
});

export const PlanRecord = z.object({
  key: z.string(),
  ratio: z.number(),
  alpha: z.number(),
  framing: Framing,
  budget: z.number().int().nonnegative(),
  /** Unit ids in the order the planner was shown them. */
  units: z.array(z.string()),
  unsolvable: z.array(z.string()),
  replies: z.array(Reply),
  /** The plan as read (null: neither the reply nor the re-ask was a plan; it scores V = 0). */
  plan: z
    .object({
      steps: z.array(Step),
      dropped: z.array(z.object({ index: z.number(), id: z.string().nullable(), reason: z.string() })),
      allocated: z.number(),
      compliant: z.boolean(),
    })
    .nullable(),
  failure: z.string().nullable(),
  /** USD of the plan's calls (the live phase not included); null without prices or in older records. */
  costUsd: z.number().nonnegative().nullable().default(null),
  scores: z.object({
    vOracle: z.number(),
    vRandom: z.number(),
    vU: z.number(),
    vE: z.number(),
    /** null when V_oracle = V_random (NaN, left out of means and counted). */
    etaU: z.number().nullable(),
    etaE: z.number().nullable(),
    regretU: z.number(),
    regretE: z.number(),
  }),
  /** null without unsolvable units, or without a plan. */
  detection: z.number().nullable(),
  waste: z.number().nullable(),
  phase2: z.enum(["simulated", "live"]),
  /** Regime E run live (phase2 `live`), else null. */
  live: LiveResult.nullable().default(null),
  /** Regime U run live (phase2 `live`), else null. */
  liveU: LiveAdvisoryResult.nullable().default(null),
  /** The budget re-solve (settings `resolve`): regime E live with each limit stated in the prompt. */
  resolve: LiveResult.nullable().default(null),
  configuration: Configuration,
  model: z.string(),
  kgateVersion: z.string(),
  finishedAt: z.string(),
});
export type PlanRecord = z.infer<typeof PlanRecord>;

export const ErrorRecord = z.object({
  phase: z.enum(["phase0", "plan"]),
  key: z.string(),
  message: z.string(),
  /** The error of the closed taxonomy (lines written before it was kept have only the message). */
  error: TrialError.optional(),
  /** The attempt of the unit or plan that failed (1 first; a retry in the session counts up). */
  attempt: z.number().int().positive().default(1),
  at: z.string(),
});
export type ErrorRecord = z.infer<typeof ErrorRecord>;

export interface TriageRunFiles {
  dir: string;
  settings: string;
  phase0: string;
  plans: string;
  errors: string;
}

export function triageRunFiles(runsDir: string, runId: string): TriageRunFiles {
  const dir = path.join(runsDir, runId);
  return {
    dir,
    settings: path.join(dir, "triage.json"),
    phase0: path.join(dir, "phase0.jsonl"),
    plans: path.join(dir, "plans.jsonl"),
    errors: path.join(dir, "errors.jsonl"),
  };
}

export function writeSettings(files: TriageRunFiles, settings: TriageSettings): void {
  mkdirSync(files.dir, { recursive: true });
  writeFileSync(files.settings, `${JSON.stringify(settings, null, 2)}\n`);
}

export function readSettings(files: TriageRunFiles): TriageSettings {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(files.settings, "utf8"));
  } catch (err) {
    throw new Error(`${files.settings}: cannot read the run's settings: ${(err as Error).message}`);
  }
  const parsed = TriageSettings.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`${files.settings} (${issue.path.join(".")}): ${issue.message}`);
  }
  return parsed.data;
}

/** The valid lines of a JSON-lines file; each line that does not parse is skipped and reported by `warn`. */
export function readLines<T>(file: string, schema: z.ZodType<T>, warn: (line: string) => void): T[] {
  const { records, problems } = readJsonLines(file, schema, "triage record");
  for (const problem of problems) warn(`${lineProblemText(problem)}, skipped`);
  return records;
}
