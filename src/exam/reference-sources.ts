// `--make-reference` by pool kind: what one trial of a unit alone is. Items and inline tasks: a
// one-question exam (the same two turns) at budget B; tasks: one sandboxed trial of the task through
// the trial engine, the configuration's agent, the condition, the task's token limit raised to B.
import { asTrialError, resolveAgent } from "../agents/index.ts";
import type { ProjectPaths } from "../project.ts";
import { internalError, outcomeOf, trialError } from "../record/index.ts";
import { type Condition, type LoadedTask, loadItemPool, loadValidTask, sha256 } from "../task/index.ts";
import {
  agentInfoOf,
  type EngineUnit,
  openSandboxRunner,
  type RunPlace,
  runDirOf,
  TrialEngine,
  UnitEngine,
} from "../trial/index.ts";
import { inlineQuestion, runInlineTaskExam } from "./inline-task-exam.ts";
import { runItemExam } from "./item-exam.ts";
import type { ExamSpec } from "./plan.ts";
import { FIXED_POINTS } from "./points.ts";
import {
  existingLines,
  type ReferenceOutcome,
  type ReferenceRunResult,
  type ReferenceTrial,
  runReference,
} from "./reference-run.ts";
import type { ExamRun } from "./run.ts";
import { modelOf, taskIds } from "./runners.ts";

export interface MakeReferenceOptions {
  kind: "items" | "tasks" | "inline-tasks";
  /** The item pool, or the task ids (`all`). */
  source: string;
  agent: string;
  /** Tasks and inline tasks. */
  condition: Condition;
  budget: number;
  trials: number;
  concurrency: number;
  file: string;
  kgateVersion: string;
  /** Task units: the run that holds their trials. */
  runId: string;
  /** Ctrl-C: no trial starts after it; units not finished are not written. */
  signal?: AbortSignal;
}

/** A one-unit exam of `id` (fixed points, position 1), trial k. */
function aloneSpec(id: string, k: number, difficulty: number | null): ExamSpec {
  return {
    key: `reference-${id}-${k}`,
    n: 1,
    exam: k,
    scheme: "fixed",
    order: "random",
    prompt: "baseline",
    nameQuestions: false, // one question: nothing to attribute
    units: [{ id, position: 1, points: FIXED_POINTS, difficulty }],
  };
}

function loadTasks(paths: ProjectPaths, source: string): Map<string, LoadedTask> {
  return new Map(taskIds(paths, source).map((id) => [id, loadValidTask(paths, id)]));
}

/** The task with its agent's token limit raised (or lowered) to the reference run's budget. */
function atBudget(task: LoadedTask, budget: number): LoadedTask {
  return { ...task, spec: { ...task.spec, limits: { ...task.spec.limits, maxTokens: budget } } };
}

/** One model trial of a unit alone (items, inline tasks), a unit of the engine. */
interface ModelTrialUnit extends EngineUnit {
  id: string;
  k: number;
}
type ModelTrialJob = ModelTrialUnit & RunPlace & { attempt: number };

/** A model trial's run as a reference outcome; a failed call is its error of the taxonomy. */
async function modelOutcome(signal: AbortSignal, exam: () => Promise<ExamRun>): Promise<ReferenceOutcome> {
  try {
    const run = await exam();
    return { correct: run.outcomes[0]!.correct, tokens: run.usage.outputTokens, error: null };
  } catch (err) {
    const error = signal.aborted
      ? trialError("cancelled", "the reference run was interrupted")
      : asTrialError(err);
    return { correct: false, tokens: 0, error };
  }
}

async function modelTrials(paths: ProjectPaths, o: MakeReferenceOptions) {
  const { config, model } = await modelOf(paths, o.agent);
  const agent = { name: config.name, digest: config.digest };
  const ctx = (signal: AbortSignal) => ({
    model,
    pricing: config.pricing,
    budget: o.budget,
    temperature: config.temperature,
    signal,
  });
  let exam: (id: string, k: number, signal: AbortSignal) => Promise<ExamRun>;
  let units: Array<{ id: string; digest: string }>;
  let condition: Condition | null = null;
  if (o.kind === "items") {
    const pool = loadItemPool(paths.root, o.source);
    const items = new Map(pool.items.map((item) => [item.id, item]));
    exam = (id, k, signal) =>
      runItemExam(aloneSpec(id, k, items.get(id)!.difficulty ?? null), items, ctx(signal));
    units = pool.items.map((item) => ({ id: item.id, digest: sha256(JSON.stringify(item)) }));
  } else {
    const tasks = loadTasks(paths, o.source);
    for (const task of tasks.values()) inlineQuestion(task, o.condition);
    exam = (id, k, signal) =>
      runInlineTaskExam(aloneSpec(id, k, null), { ...ctx(signal), tasks, condition: o.condition });
    units = [...tasks.values()].map((t) => ({ id: t.id, digest: t.digests.task }));
    condition = o.condition;
  }
  const engine = new UnitEngine<ModelTrialUnit, ModelTrialJob, ReferenceOutcome>({
    runId: o.runId,
    runDir: "",
    concurrency: o.concurrency,
    signal: o.signal,
    kind: {
      job: (unit, attempt, run) => ({ ...unit, ...run, attempt }),
      providerOf: () => config.provider,
      errorOf: (r) => r.error,
      outcomeOf: (r) => (r.error ? "infra" : r.correct ? "pass" : "fail"),
      crashed: (_job, err) => ({ correct: false, tokens: 0, error: internalError(err) }),
    },
    runner: (job, signal) => modelOutcome(signal, () => exam(job.id, job.k, signal)),
  });
  const run: ReferenceTrial = (id, k) => engine.run({ id, k });
  return { agent, units, run, condition };
}

/** Items and inline tasks: the model called directly; no sandbox. */
async function modelReference(paths: ProjectPaths, o: MakeReferenceOptions, log: (line: string) => void) {
  const { agent, units, run, condition } = await modelTrials(paths, o);
  return runReference({
    units,
    trials: o.trials,
    file: o.file,
    provenance: {
      kind: o.kind,
      agent,
      kgateVersion: o.kgateVersion,
      condition,
      budget: o.budget,
      trials: o.trials,
      runId: null,
    },
    runTrial: run,
    log,
  });
}

/** Tasks: each trial through the one trial engine (sandbox runner, retries by the failure taxonomy). */
async function taskReference(
  paths: ProjectPaths,
  o: MakeReferenceOptions,
  log: (line: string) => void,
): Promise<ReferenceRunResult> {
  const tasks = loadTasks(paths, o.source);
  const agent = await resolveAgent(paths, o.agent, { log });
  const units = [...tasks.values()].map((t) => ({ id: t.id, digest: t.digests.task }));
  const provenance = {
    kind: "tasks" as const,
    agent: { name: agent.name, digest: agent.digest },
    kgateVersion: o.kgateVersion,
    condition: o.condition,
    budget: o.budget,
    trials: o.trials,
    runId: o.runId,
  };
  // a file measured otherwise is refused before the sandbox image is prepared
  existingLines({ file: o.file, units, provenance });
  const sandbox = await openSandboxRunner({ paths, agents: [agent], log });
  const engine = new TrialEngine({
    runId: o.runId,
    runDir: runDirOf(paths, o.runId),
    runner: sandbox.runner,
    concurrency: o.concurrency,
    signal: o.signal,
  });
  const info = agentInfoOf(agent);
  const run: ReferenceTrial = async (id, k) => {
    const record = await engine.run({
      task: atBudget(tasks.get(id)!, o.budget),
      condition: o.condition,
      agent: info,
      index: k,
    });
    if (!record) return null;
    return {
      correct: record.verdict.status === "pass",
      tokens: record.usage.outputTokens,
      error: outcomeOf(record) === "infra" ? record.error : null,
    };
  };
  try {
    return await runReference({ units, trials: o.trials, file: o.file, provenance, runTrial: run, log });
  } finally {
    await sandbox.close();
  }
}

/** The reference run of `--make-reference`: one line per unit in `o.file`. */
export async function makeReference(
  paths: ProjectPaths,
  o: MakeReferenceOptions,
  log: (line: string) => void,
): Promise<ReferenceRunResult> {
  if (o.kind === "tasks") return taskReference(paths, o, log);
  return modelReference(paths, o, log);
}
