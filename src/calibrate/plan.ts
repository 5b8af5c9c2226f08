// The plan of a calibration run: cells x trials with the digests of tasks, artefacts and agent
// configurations. Written once in runs/<run>/plan.json; resume compares it with the project now.
import { z } from "zod";
import { canonicalDigest } from "../common/index.ts";
import { PayoffSchedule } from "../record/index.ts";
import { GateKind, type LoadedTask } from "../task/index.ts";
import { expandCells, type PlannedCell, PlannedCell as PlannedCellSchema } from "./cells.ts";
import { type CalibrationConfig, CellCondition, SequentialConfig } from "./config.ts";
import { Requirement } from "./requirement.ts";

export const PLAN_VERSION = 1;

/** What a plan needs to know of an agent configuration. */
export const AgentInfo = z.object({
  name: z.string(),
  digest: z.string(),
  harness: z.string(),
  model: z.string().nullable(),
  /** Trials of one provider share its concurrency limit (e.g. `anthropic`, `openai`, `local`). */
  provider: z.string(),
  /** The exact harness (`claude-code@2.1.332`, `builtin@1`): provenance of every trial of the agent. */
  revision: z.string().nullable().optional(),
});
export type AgentInfo = z.infer<typeof AgentInfo>;

/** Where the trials run: the provider, its host and the sandbox image (content id and base). */
export const SandboxInfo = z.object({
  provider: z.string(),
  host: z.string(),
  image: z.string().nullable(),
  base: z.string().nullable(),
});
export type SandboxInfo = z.infer<typeof SandboxInfo>;

/** What made the plan: kgate's version and the sandbox; agents carry their harness revision. */
export const PlanProvenance = z.object({
  kgateVersion: z.string(),
  sandbox: SandboxInfo.nullable(),
});

export const PlannedTask = z.object({
  id: z.string(),
  title: z.string(),
  gate: GateKind,
  digests: z.object({
    task: z.string(),
    instruction: z.string(),
    environment: z.string(),
    artefact: z.string(),
    variants: z.record(z.string(), z.string()),
  }),
  notes: z.array(z.string()),
});
export type PlannedTask = z.infer<typeof PlannedTask>;

/** A configured cell as the plan keeps it: a column of the report. */
export const PlannedSpec = z.object({
  name: z.string(),
  agent: z.string(),
  condition: CellCondition,
  require: Requirement.nullable(),
  control: z.boolean(),
});
export type PlannedSpec = z.infer<typeof PlannedSpec>;

/** The monitoring asked in every trial of the run (docs/monitoring.md); a resume keeps it. */
export const PlanMonitoring = z.object({
  /** --monitor: KEEP/WITHDRAW and BET/NO_BET after each trial. */
  probes: z.boolean(),
  /** --prospective: the choice before each -A trial, with this payoff schedule; null: not asked. */
  prospective: PayoffSchedule.nullable(),
});
export type PlanMonitoring = z.infer<typeof PlanMonitoring>;

/**
 * --max-cost: the run's cost ceiling (USD) and the most one trial of each cell can cost, by cell key,
 * as priced when a session last set it. Part of the plan so that a resume keeps it; `--resume <run>
 * --max-cost <usd>` replaces it. Not a decision setting: it changes which trials run, never the rule.
 */
export const PlanCeiling = z.object({
  usd: z.number().nonnegative(),
  worstCaseUsd: z.record(z.string(), z.number().nonnegative()),
});
export type PlanCeiling = z.infer<typeof PlanCeiling>;

export const Plan = z.object({
  planVersion: z.literal(PLAN_VERSION),
  runId: z.string(),
  createdAt: z.iso.datetime(),
  mode: z.enum(["fixed", "sequential"]),
  /** Trials per cell (the first round under sequential screening). */
  n: z.number().int().positive(),
  sequential: SequentialConfig,
  infraRetries: z.number().int().nonnegative(),
  /** Decisions under --strict: a clause met by one trial makes the task revise. */
  strict: z.boolean().default(false),
  /** Curtailment (curtail.ts): trials that cannot change a task's decision are not run. Absent in older plans: off. */
  curtail: z.boolean().default(false),
  tasks: z.array(PlannedTask),
  agents: z.array(AgentInfo),
  specs: z.array(PlannedSpec),
  cells: z.array(PlannedCellSchema),
  /** Absent in plans written before provenance was recorded. */
  provenance: PlanProvenance.nullable().default(null),
  /** Null or absent: no monitoring (absent in plans written before it was kept). */
  monitoring: PlanMonitoring.nullable().optional(),
  /**
   * sha256 of the plan's own decision settings (decisionSettingsDigest): `--resume` and `report`
   * refuse a plan whose settings no longer match it (a hand edit). Absent in plans written before.
   */
  settingsDigest: z.string().optional(),
  /** The cost ceiling; null or absent: none (absent in plans written before a plan kept it). */
  ceiling: PlanCeiling.nullable().optional(),
});
export type Plan = z.infer<typeof Plan>;

/** The fields of a plan that decide its tasks: mode, n, screening, retries, strict, specs and cells. */
export const DECISION_SETTINGS = [
  "mode",
  "n",
  "sequential",
  "infraRetries",
  "strict",
  "specs",
  "cells",
] as const;

/** sha256 of the plan's decision settings, in canonical JSON. */
export function decisionSettingsDigest(plan: Omit<Plan, "settingsDigest">): string {
  const settings = Object.fromEntries(DECISION_SETTINGS.map((k) => [k, plan[k]]));
  return canonicalDigest(settings);
}

export interface PlanInputs {
  runId: string;
  createdAt?: Date;
  config: CalibrationConfig;
  tasks: readonly LoadedTask[];
  /** Resolves an agent configuration name; throws when it is unknown. */
  resolveAgent: (name: string) => AgentInfo;
  provenance?: z.infer<typeof PlanProvenance> | null;
  monitoring?: PlanMonitoring | null;
  ceiling?: PlanCeiling | null;
}

export function plannedTask(task: LoadedTask, notes: string[]): PlannedTask {
  const d = task.digests;
  return {
    id: task.id,
    title: task.spec.title,
    gate: task.spec.gate,
    digests: {
      task: d.task,
      instruction: d.instruction,
      environment: d.environment,
      artefact: d.artefact,
      variants: { ...d.variants },
    },
    notes,
  };
}

export function buildPlan(input: PlanInputs): Plan {
  const cells: PlannedCell[] = [];
  const tasks: PlannedTask[] = [];
  for (const task of input.tasks) {
    const expanded = expandCells(task, input.config.cells);
    cells.push(...expanded.cells);
    tasks.push(plannedTask(task, expanded.notes));
  }
  const agentNames = [...new Set(cells.map((c) => c.agent))];
  const plan: Plan = {
    planVersion: PLAN_VERSION,
    runId: input.runId,
    createdAt: (input.createdAt ?? new Date()).toISOString(),
    mode: input.config.sequential.enabled ? "sequential" : "fixed",
    n: input.config.n,
    sequential: input.config.sequential,
    infraRetries: input.config.infraRetries,
    strict: input.config.strict,
    curtail: input.config.curtail,
    tasks,
    agents: agentNames.map((name) => input.resolveAgent(name)),
    specs: input.config.cells.map((c) => ({
      name: c.name,
      agent: c.agent,
      condition: c.condition,
      require: c.require ?? null,
      control: c.control,
    })),
    cells,
    provenance: input.provenance ?? null,
    monitoring: input.monitoring ?? null,
  };
  return { ...plan, settingsDigest: decisionSettingsDigest(plan), ceiling: input.ceiling ?? null };
}

/** Most valid trials a cell may get: n, or the cap under sequential screening. */
export function maxTrials(plan: Plan): number {
  return plan.mode === "sequential" ? Math.max(plan.n, plan.sequential.cap) : plan.n;
}

const short = (digest: string) => digest.slice(0, 12);

/**
 * Why the project no longer matches the plan, one line per changed digest: the task definition,
 * the artefact or a variant used by a cell, an agent configuration. Empty when resume is safe.
 */
export function planDrift(
  plan: Plan,
  current: {
    tasks: ReadonlyMap<string, LoadedTask>;
    agents: ReadonlyMap<string, AgentInfo>;
    sandbox?: SandboxInfo | null;
  },
): string[] {
  const drift: string[] = [];
  const changed = (what: string, before: string, now: string) =>
    drift.push(`${what} changed (plan ${short(before)}…, now ${short(now)}…)`);
  for (const planned of plan.tasks) {
    const task = current.tasks.get(planned.id);
    if (!task) {
      drift.push(`task "${planned.id}" can no longer be loaded`);
      continue;
    }
    const d = task.digests;
    if (d.task !== planned.digests.task) {
      const parts = (["instruction", "environment"] as const).filter((k) => d[k] !== planned.digests[k]);
      const where = parts.length > 0 ? ` (${parts.join(" and ")})` : "";
      changed(`task "${planned.id}" definition${where}`, planned.digests.task, d.task);
    }
    const cells = plan.cells.filter((c) => c.task === planned.id);
    if (cells.some((c) => c.condition === "+A") && d.artefact !== planned.digests.artefact) {
      changed(`artefact of task "${planned.id}"`, planned.digests.artefact, d.artefact);
    }
    for (const cell of cells) {
      if (!cell.condition.startsWith("variant:")) continue;
      const name = cell.condition.slice("variant:".length);
      const before = planned.digests.variants[name] ?? "";
      const now = d.variants[name];
      if (now === undefined) drift.push(`variant "${name}" of task "${planned.id}" is gone`);
      else if (now !== before) changed(`variant "${name}" of task "${planned.id}"`, before, now);
    }
  }
  for (const agent of plan.agents) {
    const now = current.agents.get(agent.name);
    if (!now) drift.push(`agent configuration "${agent.name}" is no longer defined`);
    else if (now.digest !== agent.digest)
      changed(`agent configuration "${agent.name}"`, agent.digest, now.digest);
  }
  const before = plan.provenance?.sandbox;
  const now = current.sandbox;
  if (before?.image && now?.image && before.image !== now.image) {
    changed("sandbox image", before.image.replace(/^sha256:/, ""), now.image.replace(/^sha256:/, ""));
  }
  return [...new Set(drift)];
}
