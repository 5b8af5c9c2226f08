// Gated-task units: a task under +A (solvable) and its -A twin (unsolvable by construction), shown to
// the planner as the instruction plus the files it would find; phase 0 runs one sandboxed trial
// through the trial runner (this module is the one adapter to it). Cost: the trial's output tokens.
import type { Agent, SandboxRequirements } from "../agents/index.ts";
import type { ProjectPaths } from "../project.ts";
import { type Condition, conditionFileSet, type LoadedTask } from "../task/index.ts";
import { readTrialRecords, runTrial, type VerifyTrial } from "../trial/index.ts";
import type { UnitOutcome } from "./item-unit.ts";
import type { TriageUnit } from "./pool.ts";

/** Unit id of a task under a condition: `<task>+A`, `<task>-A`. */
export const taskUnitId = (task: string, condition: Condition) => `${task}${condition}`;

function unitText(task: LoadedTask, condition: Condition): string {
  const files = conditionFileSet(task, condition)
    .files.map((f) => f.path)
    .sort();
  return `${task.instruction.toString("utf8")}\n\nFiles in the working directory: ${files.join(", ")}`;
}

/** The +A unit of each task, and its -A twin (the unsolvable replacement). */
export function unitsFromTasks(tasks: readonly LoadedTask[]): {
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
      source: { kind: "task", task: task.id, condition: "+A" },
    };
    const twin: TriageUnit = {
      id: taskUnitId(task.id, "-A"),
      text: unitText(task, "-A"),
      value: 1,
      unsolvable: true,
      source: { kind: "task", task: task.id, condition: "-A" },
    };
    units.push(solvable, twin);
    twins.set(solvable.id, twin);
  }
  return { units, twins };
}

export interface TaskTrialContext {
  paths: ProjectPaths;
  tasks: ReadonlyMap<string, LoadedTask>;
  agent: Agent;
  requirements: SandboxRequirements;
  image: string;
  verify: VerifyTrial;
  runId: string;
  runDir: string;
}

/** Runs a task unit as one trial; an infrastructure error throws (retried, else logged and resumable). */
export async function runTaskUnit(ctx: TaskTrialContext, unit: TriageUnit): Promise<UnitOutcome> {
  if (unit.source.kind !== "task") throw new Error(`unit ${unit.id} is not a task`);
  const { task: taskId, condition } = unit.source;
  const task = ctx.tasks.get(taskId);
  if (!task) throw new Error(`unit ${unit.id}: task ${taskId} is not loaded`);
  const earlier = readTrialRecords(ctx.runDir).records.filter(
    (r) => r.task.id === taskId && r.condition === condition,
  ).length;
  const record = await runTrial({
    paths: ctx.paths,
    task,
    condition: condition as Condition,
    agent: ctx.agent,
    runId: ctx.runId,
    runDir: ctx.runDir,
    index: earlier,
    image: ctx.image,
    requirements: ctx.requirements,
    verify: ctx.verify,
  });
  if (record.error?.class === "infra")
    throw new Error(`trial ${record.trialId}: ${record.error.kind}: ${record.error.message}`);
  return {
    cost: record.usage.outputTokens,
    correct: record.verdict.status === "pass",
    capped: record.stopReason === "token-budget",
    answer: record.verdict.status,
    reply: `trial ${record.trialId}: ${record.stopReason}, verdict ${record.verdict.status}`,
    stopReason: record.stopReason,
    inputTokens: record.usage.inputTokens,
  };
}
