// A task exam: the N tasks in one sandbox (task-k/ holds task k's instruction, data and outputs), one
// built-in-loop session with token budget B and the points in the shared instruction, then each task
// verified by its own verifier (in the killable worker, after every process of the sandbox stopped);
// each turn's output tokens go to the task folders its tool calls touch.
import path from "node:path";
import type { Agent } from "../agents/index.ts";
import { FAILURE_KINDS, type SandboxRequirements, type TrajectoryEvent, trialError } from "../model/index.ts";
import {
  containerLabels,
  SANDBOX_WORKDIR,
  type SandboxProvider,
  type TrialSandbox,
} from "../sandbox/index.ts";
import { type Condition, conditionFileSet, diskMbOf, type LoadedTask } from "../task/index.ts";
import { FileTrajectory, type VerifyTrial, verifyOutputs } from "../trial/index.ts";
import { attributeTurns, foldersTouched, type TurnTouch } from "./attribution.ts";
import { type ExamRun, ExamRunFailure } from "./engine.ts";
import type { ExamSpec } from "./plan.ts";
import { PLANNING_CLAUSE } from "./prompts.ts";

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
  image: string;
  budget: number;
  runId: string;
  runDir: string;
  requirements?: SandboxRequirements;
  verify: VerifyTrial;
  /** How long one task's verifier may run on the outputs. */
  verifyMs: number;
  signal?: AbortSignal;
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

/** Keeps the session's events in memory (for the attribution) as well as on disk. */
class CapturingTrajectory {
  readonly events: Array<Omit<TrajectoryEvent, "at">> = [];
  constructor(private readonly file: FileTrajectory) {}
  append(event: Omit<TrajectoryEvent, "at">): void {
    this.events.push(event);
    this.file.append(event);
  }
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

export async function runTaskExam(spec: ExamSpec, ctx: TaskExamContext): Promise<ExamRun> {
  const tasks = spec.units.map((u) => {
    const task = ctx.tasks.get(u.id);
    if (!task) throw new Error(`the exam's task "${u.id}" is not loaded`);
    return task;
  });
  const limits = tasks.map((t) => t.spec.limits);
  const sum = (f: (l: (typeof limits)[number]) => number) => limits.reduce((s, l) => s + f(l), 0);
  const max = (f: (l: (typeof limits)[number]) => number) => Math.max(...limits.map(f));
  const files = placeFiles(spec, ctx.tasks, ctx.condition);
  const timeoutSec = sum((l) => l.timeoutSec);
  const ref = ctx.requirements?.image ?? ctx.image;
  const placement = (await ctx.provider.place?.([ref], ctx.signal)) ?? {
    provider: ctx.provider,
    release: () => {},
  };
  try {
    const sandbox = await placement.provider.create({
      image: ctx.image,
      limits: {
        cpus: max((l) => l.cpus),
        memoryMb: max((l) => l.memoryMb),
        pids: max((l) => l.pids),
        // one cap for the shared sandbox: the largest of the tasks' (tmpfs space is memory, sized like it)
        diskMb: max((l) => diskMbOf(l)),
        timeoutSec,
      },
      network: false,
      labels: containerLabels({ runId: ctx.runId, trialId: spec.key, taskId: "exam" }),
      ...(ctx.requirements ? { requirements: ctx.requirements } : {}),
    });
    try {
      return await examInSandbox(spec, ctx, tasks, sandbox, files, limits, timeoutSec);
    } finally {
      await sandbox.remove().catch(() => {});
    }
  } finally {
    placement.release();
  }
}

async function examInSandbox(
  spec: ExamSpec,
  ctx: TaskExamContext,
  tasks: readonly LoadedTask[],
  sandbox: TrialSandbox,
  files: ReturnType<typeof placeFiles>,
  limits: readonly LoadedTask["spec"]["limits"][],
  timeoutSec: number,
): Promise<ExamRun> {
  await sandbox.putFiles(SANDBOX_WORKDIR, files);
  const trajectory = new CapturingTrajectory(
    new FileTrajectory(path.join(ctx.runDir, "exams", spec.key, "trajectory.jsonl")),
  );
  // the loop stops itself at its timeout; this only ends a session that ignores it
  const hardStop = AbortSignal.timeout((timeoutSec + 60) * 1000);
  const result = await ctx.agent.run({
    instruction: taskExamInstruction(spec, ctx.tasks, ctx.condition, ctx.budget),
    sandbox,
    limits: {
      ...limits[0]!,
      maxTokens: ctx.budget,
      maxTurns: limits.reduce((s, l) => s + l.maxTurns, 0),
      timeoutSec,
    },
    condition: ctx.condition,
    artefact: null,
    task: tasks[0]!,
    signal: ctx.signal ? AbortSignal.any([ctx.signal, hardStop]) : hardStop,
    trajectory,
  });
  // an infrastructure failure or an interruption is no outcome of the exam: recorded as an error, rerun on resume
  if (result.error && !FAILURE_KINDS[result.error.kind].counted) throw new ExamRunFailure(result.error);
  if (ctx.signal?.aborted) throw new ExamRunFailure(trialError("cancelled", "the exam run was interrupted"));
  // nothing the agent started may write while the outputs are read (issue 14: the copy-out race)
  await sandbox.stop();
  const outcomes = [];
  for (const [i, task] of tasks.entries()) {
    const folder = taskFolder(i + 1);
    const collected = await sandbox.collectOutputs(
      task.spec.outputs.map((o) => ({ path: `${folder}/${o.path}`, maxBytes: o.maxBytes })),
    );
    const given = collected.map((f, k) => ({
      path: task.spec.outputs[k]!.path,
      status: f.record.status,
      bytes: f.bytes,
      reason: f.record.reason,
    }));
    const { verdict, error } = await verifyOutputs(ctx.verify, task, given, ctx.verifyMs);
    // a verifier that fails whatever the output is the task's bug: the exam cannot be scored
    if (error && !FAILURE_KINDS[error.kind].counted) throw new ExamRunFailure(error);
    const correct = verdict.status === "pass";
    outcomes.push({ score: correct ? 1 : 0, correct, answer: null });
  }
  const folders = spec.units.map((u) => taskFolder(u.position));
  return {
    usage: result.usage,
    extractionUsage: null,
    stopReason: result.stopReason,
    outcomes,
    attribution: attributeTurns(turnTouches(trajectory.events, folders), spec.units.length),
  };
}
