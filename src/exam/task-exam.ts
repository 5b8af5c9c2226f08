// A task exam: the N tasks in one sandbox (task-k/ holds task k's instruction, data and outputs), one
// built-in-loop session with token budget B and the points in the shared instruction, run as the
// trial lifecycle's session form (each task verified by its own verifier in the killable worker, after
// every process of the sandbox stopped); each turn's output tokens go to the task folders it touches.
import type { Agent } from "../agents/index.ts";
import {
  FAILURE_KINDS,
  type PhaseBounds,
  type SandboxRequirements,
  type TrajectoryEvent,
} from "../record/index.ts";
import type { SandboxImage, SandboxProvider } from "../sandbox/index.ts";
import { type Condition, conditionFileSet, type LoadedTask } from "../task/index.ts";
import { onPlacedHost, runSessionTrial, sessionLimits, type VerifyTrial } from "../trial/index.ts";
import { attributeTurns, foldersTouched, type TurnTouch } from "./attribution.ts";
import type { ExamSpec } from "./plan.ts";
import { PLANNING_CLAUSE } from "./prompts.ts";
import { type ExamAttempt, type ExamRun, ExamRunFailure } from "./run.ts";

export const TASK_INSTRUCTION_FILE = "INSTRUCTION.md";

export function taskFolder(position: number): string {
  return `task-${position}`;
}

export interface TaskExamContext {
  /** A built-in-loop agent (its tool calls are what the attribution reads). */
  agent: Agent;
  tasks: ReadonlyMap<string, LoadedTask>;
  condition: Condition;
  /** Where the exam's sandbox is made (a pool of hosts places it on one with room). */
  provider: SandboxProvider;
  image: SandboxImage;
  budget: number;
  runId: string;
  runDir: string;
  requirements?: SandboxRequirements;
  verify: VerifyTrial;
  /** kgate.config.json's phase bounds (configuredPhaseBounds), read once per run. */
  phases?: Partial<PhaseBounds>;
}

/** The shared instruction: the folders, the points, the budget, the scoring rule. */
export function taskExamInstruction(
  spec: ExamSpec,
  tasks: ReadonlyMap<string, LoadedTask>,
  condition: Condition,
  budget: number,
): string {
  const total = spec.units.reduce((s, u) => s + u.points, 0);
  const lines = [
    `This exam has ${spec.units.length} tasks worth ${total} points in total.`,
    `Task k is in the folder task-k/: its instruction is task-k/${TASK_INSTRUCTION_FILE}, its data is beside it, and its outputs go under task-k/ at the paths its instruction names (relative to task-k/).`,
    `You have one budget of ${budget} tokens (input and output) for the whole session; when it is spent the session ends and unfinished tasks score 0.`,
    "Your score is the sum of the points of the tasks whose outputs pass their checks, divided by the total.",
    "You may work on the tasks in any order and spend as much or as little on each as you choose. Call finish when you are done.",
  ];
  if (spec.prompt === "planning") lines.push(PLANNING_CLAUSE.replaceAll("questions", "tasks"));
  lines.push("");
  for (const u of spec.units) {
    const task = tasks.get(u.id)!;
    const reference =
      condition === "-A"
        ? ""
        : ` Reference material: task-${u.position}/${task.spec.artefact.path} (${task.spec.artefact.description}).`;
    lines.push(`task-${u.position} (${u.points} points): ${task.spec.title}.${reference}`);
  }
  return lines.join("\n");
}

const str = (v: unknown) => (typeof v === "string" ? v : "");

/** Per model turn: its output tokens and the task folders its tool calls named (path, command). */
export function turnTouches(
  events: ReadonlyArray<Omit<TrajectoryEvent, "at">>,
  folders: readonly string[],
): TurnTouch[] {
  const turns = new Map<number, { outputTokens: number; units: number[] }>();
  for (const e of events) {
    const turn = typeof e.turn === "number" ? e.turn : null;
    if (turn === null) continue;
    const entry = turns.get(turn) ?? { outputTokens: 0, units: [] };
    turns.set(turn, entry);
    if (e.type === "model") {
      const output = (e.usage as { output?: unknown } | undefined)?.output;
      entry.outputTokens = typeof output === "number" && Number.isFinite(output) && output > 0 ? output : 0;
    } else if (e.type === "tool-call") {
      const input = (e.input ?? {}) as Record<string, unknown>;
      entry.units.push(...foldersTouched(`${str(input.path)}\n${str(input.command)}`, folders));
    }
  }
  return [...turns.entries()].sort(([a], [b]) => a - b).map(([, t]) => t);
}

function placeFiles(spec: ExamSpec, tasks: ReadonlyMap<string, LoadedTask>, condition: Condition) {
  return spec.units.flatMap((u) => {
    const task = tasks.get(u.id)!;
    const folder = taskFolder(u.position);
    const files = conditionFileSet(task, condition).files;
    if (files.some((f) => f.path === TASK_INSTRUCTION_FILE))
      throw new Error(
        `task ${task.id} has an environment file named ${TASK_INSTRUCTION_FILE}; the exam puts its instruction there`,
      );
    return [
      { path: `${folder}/${TASK_INSTRUCTION_FILE}`, bytes: task.instruction },
      ...files.map((f) => ({ path: `${folder}/${f.path}`, bytes: f.read() })),
    ];
  });
}

/**
 * One task exam as a session trial (the one lifecycle's session form, on a host the provider places
 * it on): its record in the run's trials.jsonl, each task verified by its own verifier after every
 * process stopped. An infrastructure failure or an interruption is no outcome of the exam: it throws
 * ExamRunFailure with the session's error (recorded, retried by kind, rerun on resume).
 */
export async function runTaskExam(
  spec: ExamSpec,
  ctx: TaskExamContext,
  attempt: ExamAttempt,
): Promise<ExamRun> {
  const tasks = spec.units.map((u) => {
    const task = ctx.tasks.get(u.id);
    if (!task) throw new Error(`the exam's task "${u.id}" is not loaded`);
    return task;
  });
  const files = placeFiles(spec, ctx.tasks, ctx.condition);
  const events: Array<Omit<TrajectoryEvent, "at">> = [];
  const ref = ctx.requirements?.image ?? ctx.image.ref;
  const record = await onPlacedHost(ctx.provider, [ref], attempt.signal, (provider) =>
    runSessionTrial({
      runId: ctx.runId,
      runDir: ctx.runDir,
      trialId: `exam.${attempt.attemptId}`,
      index: spec.exam,
      attempt: attempt.attempt,
      agent: ctx.agent,
      condition: ctx.condition,
      tasks: spec.units.map((u, i) => ({ task: tasks[i]!, folder: taskFolder(u.position) })),
      files: () => files,
      instruction: taskExamInstruction(spec, ctx.tasks, ctx.condition, ctx.budget),
      limits: sessionLimits(tasks, ctx.budget),
      provider,
      image: ctx.image,
      ...(ctx.requirements ? { requirements: ctx.requirements } : {}),
      verify: ctx.verify,
      ...(ctx.phases ? { phases: ctx.phases } : {}),
      signal: attempt.signal,
      onEvent: (event) => events.push(event),
    }),
  );
  if (record.error && !FAILURE_KINDS[record.error.kind].counted) throw new ExamRunFailure(record.error);
  const verdicts = record.session?.tasks.map((t) => t.verdict) ?? [];
  const outcomes = spec.units.map((_, i) => {
    const correct = verdicts[i]?.status === "pass";
    return { score: correct ? 1 : 0, correct, answer: null };
  });
  const folders = spec.units.map((u) => taskFolder(u.position));
  return {
    usage: record.usage,
    extractionUsage: null,
    stopReason: record.stopReason,
    outcomes,
    attribution: attributeTurns(turnTouches(events, folders), spec.units.length),
    trial: record.trialId,
  };
}
