// Gated-task units: a task under +A (solvable) and its -A twin (unsolvable by construction), shown to
// the planner as the instruction plus the files it would find; phase 0 runs one sandboxed trial
// through the trial engine (this module and task-live.ts, which runs planned units live, are the
// adapters to it). Cost: the trial's output tokens.
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import type { ProjectPaths } from "../project.ts";
import { type Condition, outcomeOf as countedAs, type TrialRecord, trialError } from "../record/index.ts";
import { conditionFileSet, type LoadedTask } from "../task/index.ts";
import { type EngineAgentInfo, readTrialRecords, type TrialEngine } from "../trial/index.ts";
import type { UnitOutcome } from "./item-unit.ts";
import { UnitFailure } from "./live.ts";
import type { TriageUnit } from "./pool.ts";

/** Unit id of a task under a condition: `<task>+A`, `<task>-A`. */
export const taskUnitId = (task: string, condition: Condition) => `${task}${condition}`;

function unitText(task: LoadedTask, condition: Condition): string {
  const files = conditionFileSet(task, condition)
    .files.map((f) => f.path)
    .sort();
  return `${task.instruction.toString("utf8")}\n\nFiles in the working directory: ${files.join(", ")}`;
}

/** The +A unit of each task, and its -A twin (the unsolvable replacement), run sandboxed or inline. */
export function unitsFromTasks(
  tasks: readonly LoadedTask[],
  kind: "task" | "inline" = "task",
): {
  units: TriageUnit[];
  twins: Map<string, TriageUnit>;
} {
  const units: TriageUnit[] = [];
  const twins = new Map<string, TriageUnit>();
  for (const task of tasks) {
    const solvable: TriageUnit = {
      id: taskUnitId(task.id, "+A"),
      text: unitText(task, "+A"),
      value: 1,
      unsolvable: false,
      source: { kind, task: task.id, condition: "+A" },
    };
    const twin: TriageUnit = {
      id: taskUnitId(task.id, "-A"),
      text: unitText(task, "-A"),
      value: 1,
      unsolvable: true,
      source: { kind, task: task.id, condition: "-A" },
    };
    units.push(solvable, twin);
    twins.set(solvable.id, twin);
  }
  return { units, twins };
}

export interface TaskTrialContext {
  paths: ProjectPaths;
  tasks: ReadonlyMap<string, LoadedTask>;
  agent: EngineAgentInfo;
  /** The one trial engine, over the sandbox runner with the agent prepared once. */
  engine: TrialEngine;
  runDir: string;
}

/**
 * A finished trial of the same task (same task digest), condition and configuration digest in any
 * run under `runsDir` (a calibration's, or an earlier triage's): phase 0 reuses it instead of paying
 * twice. Trials with an infrastructure error, or unverified, do not count.
 */
export function matchingTrial(
  runsDir: string,
  task: LoadedTask,
  condition: Condition,
  agentDigest: string,
): TrialRecord | null {
  if (!existsSync(runsDir)) return null;
  for (const run of readdirSync(runsDir).sort()) {
    const { records } = readTrialRecords(path.join(runsDir, run));
    const found = records.find(
      (r) =>
        r.task.id === task.id &&
        r.task.digests.task === task.digests.task &&
        r.condition === condition &&
        r.agent.digest === agentDigest &&
        countedAs(r) !== "infra" &&
        r.verdict.status !== "unverified",
    );
    if (found) return found;
  }
  return null;
}

/** A trial as a unit's outcome: cost = output tokens, correct = verdict pass, capped = stopped on the token budget. */
export function trialOutcome(record: TrialRecord, reused: boolean): UnitOutcome {
  return {
    cost: record.usage.outputTokens,
    correct: record.verdict.status === "pass",
    capped: record.stopReason === "token-budget",
    answer: record.verdict.status,
    reply: `${reused ? "reused " : ""}trial ${record.runId}/${record.trialId}: ${record.stopReason}, verdict ${record.verdict.status}`,
    stopReason: record.stopReason,
    inputTokens: record.usage.inputTokens,
    costUsd: reused ? 0 : record.usage.costUsd,
  };
}

/**
 * Runs a task unit as one trial through the trial engine (which retries it by kind), or reuses a
 * matching finished one; an infrastructure error throws UnitFailure with the trial's error (logged,
 * and resumable).
 */
export async function runTaskUnit(ctx: TaskTrialContext, unit: TriageUnit): Promise<UnitOutcome> {
  if (unit.source.kind !== "task") throw new Error(`unit ${unit.id} is not a task`);
  const { task: taskId } = unit.source;
  const condition = unit.source.condition as Condition;
  const task = ctx.tasks.get(taskId);
  if (!task) throw new Error(`unit ${unit.id}: task ${taskId} is not loaded`);
  const reusable = matchingTrial(ctx.paths.runs, task, condition, ctx.agent.digest);
  if (reusable) return trialOutcome(reusable, true);
  const earlier = readTrialRecords(ctx.runDir).records.filter(
    (r) => r.task.id === taskId && r.condition === condition,
  ).length;
  const record = await ctx.engine.run({ task, condition, agent: ctx.agent, index: earlier });
  return trialOutcome(spentOrRecord(record), false);
}

/** The trial's record, or a spent UnitFailure (the trial engine retried it) when it did not count or never ran. */
export function spentOrRecord(record: TrialRecord | null): TrialRecord {
  if (!record)
    throw new UnitFailure(trialError("cancelled", "the run was cancelled before the trial started"), true);
  if (countedAs(record) === "infra" && record.error)
    throw new UnitFailure(
      { ...record.error, message: `trial ${record.trialId}: ${record.error.message}` },
      true,
    );
  return record;
}
