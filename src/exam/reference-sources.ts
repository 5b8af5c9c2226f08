// `--make-reference` by pool kind: what one trial of a unit alone is. Items and inline tasks: a
// one-question exam (the same two turns) at budget B; tasks: one sandboxed trial of the task through
// the trial engine, the configuration's agent, the condition, the task's token limit raised to B.
import { resolveAgent } from "../agents/index.ts";
import { outcomeOf } from "../model/index.ts";
import type { ProjectPaths } from "../project.ts";
import { removeOnInterrupt } from "../sandbox/index.ts";
import { type Condition, type LoadedTask, loadItemPool, loadValidTask, sha256 } from "../task/index.ts";
import { agentInfoOf, openSandboxRunner, runDirOf, TrialEngine } from "../trial/index.ts";
import { inlineQuestion, runInlineTaskExam } from "./inline-task-exam.ts";
import { runItemExam } from "./item-exam.ts";
import type { ExamSpec } from "./plan.ts";
import { FIXED_POINTS } from "./points.ts";
import {
  existingLines,
  type ReferenceRunResult,
  type ReferenceTrial,
  runReference,
} from "./reference-run.ts";
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

async function modelTrials(paths: ProjectPaths, o: MakeReferenceOptions) {
  const { config, model } = await modelOf(paths, o.agent);
  const ctx = { model, pricing: config.pricing, budget: o.budget, temperature: config.temperature };
  const agent = { name: config.name, digest: config.digest };
  if (o.kind === "items") {
    const pool = loadItemPool(paths.root, o.source);
    const items = new Map(pool.items.map((item) => [item.id, item]));
    const run: ReferenceTrial = async (id, k) => {
      const exam = await runItemExam(aloneSpec(id, k, items.get(id)!.difficulty ?? null), items, ctx);
      return { correct: exam.outcomes[0]!.correct, tokens: exam.usage.outputTokens };
    };
    const units = pool.items.map((item) => ({ id: item.id, digest: sha256(JSON.stringify(item)) }));
    return { agent, units, run, condition: null };
  }
  const tasks = loadTasks(paths, o.source);
  for (const task of tasks.values()) inlineQuestion(task, o.condition);
  const run: ReferenceTrial = async (id, k) => {
    const exam = await runInlineTaskExam(aloneSpec(id, k, null), { ...ctx, tasks, condition: o.condition });
    return { correct: exam.outcomes[0]!.correct, tokens: exam.usage.outputTokens };
  };
  const units = [...tasks.values()].map((t) => ({ id: t.id, digest: t.digests.task }));
  return { agent, units, run, condition: o.condition };
}

/** Items and inline tasks: the model called directly; no sandbox. */
async function modelReference(paths: ProjectPaths, o: MakeReferenceOptions, log: (line: string) => void) {
  const { agent, units, run, condition } = await modelTrials(paths, o);
  return runReference({
    units,
    trials: o.trials,
    concurrency: o.concurrency,
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
): Promise<ReferenceRunResult & { interrupted: unknown }> {
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
  const interrupt = new AbortController();
  const stopListening = removeOnInterrupt(o.runId, interrupt, log);
  const runDir = runDirOf(paths, o.runId);
  const engine = new TrialEngine({
    runId: o.runId,
    runDir,
    runner: sandbox.runner,
    concurrency: o.concurrency,
    signal: interrupt.signal,
  });
  const info = agentInfoOf(agent);
  const run: ReferenceTrial = async (id, k) => {
    const record = await engine.run({
      task: atBudget(tasks.get(id)!, o.budget),
      condition: o.condition,
      agent: info,
      index: k,
    });
    if (!record) throw new Error("the run was interrupted before the trial started");
    if (outcomeOf(record) === "infra")
      throw new Error(`trial ${record.trialId}: ${record.error?.kind}: ${record.error?.message}`);
    return { correct: record.verdict.status === "pass", tokens: record.usage.outputTokens };
  };
  try {
    const result = await runReference({
      units,
      trials: o.trials,
      concurrency: o.concurrency,
      file: o.file,
      provenance,
      runTrial: run,
      log,
      signal: interrupt.signal,
    });
    return { ...result, interrupted: interrupt.signal.reason };
  } finally {
    stopListening();
    await sandbox.close();
  }
}

/** The reference run of `--make-reference`: one line per unit in `o.file`. */
export async function makeReference(
  paths: ProjectPaths,
  o: MakeReferenceOptions,
  log: (line: string) => void,
): Promise<ReferenceRunResult & { interrupted: unknown }> {
  if (o.kind === "tasks") return taskReference(paths, o, log);
  return { ...(await modelReference(paths, o, log)), interrupted: undefined };
}
