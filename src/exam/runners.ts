// What an exam run needs from the project, by kind: the pool's units, their digest, the agent as
// records name it, and the function that runs one exam (items, inline tasks: a ChatModel; tasks: the
// sandbox).
import { readFileSync } from "node:fs";
import path from "node:path";
import {
  type Agent,
  loadAgentConfigs,
  loadChatModel,
  type ResolvedAgentConfig,
  resolveAgent,
  resolveApiKey,
} from "../agents/index.ts";
import type { ProjectPaths } from "../project.ts";
import {
  formatProblem,
  type LoadedTask,
  loadAllTasks,
  loadItemPool,
  loadValidTask,
  sha256,
} from "../task/index.ts";
import { configuredPhaseBounds, defaultVerify, modelProviderOf, openSandboxRunner } from "../trial/index.ts";
import { type ExamBound, sessionBound, twoTurnBound } from "./cost.ts";
import {
  inlineExamQuestions,
  inlineExtractionPrompt,
  inlineExtractionTokens,
  inlineQuestion,
  runInlineTaskExam,
} from "./inline-task-exam.ts";
import { extractionTokens, itemQuestions, runItemExam } from "./item-exam.ts";
import type { ExamSpec, PoolUnit } from "./plan.ts";
import { examPrompt, extractionPrompt } from "./prompts.ts";
import type { ExamRecord } from "./record.ts";
import { loadReference } from "./reference.ts";
import type { ExamAttempt, ExamRun } from "./run.ts";
import type { ExamRunFile } from "./session.ts";
import { runTaskExam } from "./task-exam.ts";

export interface ExamRunner extends ExamPool {
  agent: ExamRecord["agent"];
  runOne: (spec: ExamSpec, attempt: ExamAttempt) => Promise<ExamRun>;
  /** The model provider whose concurrency limit the exams share. */
  provider: string;
  dispose?: () => Promise<void>;
}

function referenceOf(paths: ProjectPaths, run: ExamRunFile) {
  return run.reference ? loadReference(path.resolve(paths.root, run.reference.file)) : null;
}

function difficulty(declared: number | undefined, id: string, reference: ReturnType<typeof referenceOf>) {
  const measured = reference?.entries.get(id);
  return declared ?? (measured ? 1 - measured.accuracy : null);
}

function agentConfig(paths: ProjectPaths, name: string): ResolvedAgentConfig {
  const loaded = loadAgentConfigs(paths);
  if (loaded.errors.length > 0)
    throw new Error(`${loaded.file} is invalid: ${formatProblem(loaded.errors[0]!)}`);
  const config = loaded.agents.find((a) => a.name === name);
  if (!config)
    throw new Error(
      `unknown agent "${name}" for an exam (configured: ${loaded.agents.map((a) => a.name).join(", ") || "none"})`,
    );
  return config;
}

/** The configuration's model, called directly (items, inline tasks). */
export async function modelOf(paths: ProjectPaths, agentName: string) {
  const config = agentConfig(paths, agentName);
  const key = resolveApiKey(config);
  if (key === undefined)
    throw new Error(
      `agent "${config.name}" needs the environment variable ${config.apiKeyEnv} (its API key)`,
    );
  return { config, model: await loadChatModel(config, key) };
}

/** An exam run's pool without its model or sandbox: what the plan, the estimate and the ceiling need. */
export interface ExamPool {
  units: PoolUnit[];
  poolDigest: string;
  reference: ReturnType<typeof loadReference> | null;
  /** The agent configuration (null: a built-in agent without one, e.g. for a task exam's refusal later). */
  config: ResolvedAgentConfig | null;
  /** The most one exam can spend. */
  bound: ExamBound;
}

function itemPool(paths: ProjectPaths, run: ExamRunFile) {
  const pool = loadItemPool(paths.root, run.pool.source);
  const reference = referenceOf(paths, run);
  const config = agentConfig(paths, run.agent.name);
  const items = new Map(pool.items.map((item) => [item.id, item]));
  return {
    items,
    units: pool.items.map((item) => ({
      id: item.id,
      difficulty: difficulty(item.difficulty, item.id, reference),
    })),
    poolDigest: sha256(readFileSync(pool.file)),
    reference,
    config,
    bound: (spec: ExamSpec) =>
      twoTurnBound(
        config.pricing,
        examPrompt(itemQuestions(spec, items), run.budget, spec.prompt, spec.nameQuestions),
        run.budget,
        { prompt: extractionPrompt(spec.units.length), maxOutputTokens: extractionTokens(spec.units.length) },
      ),
  };
}

/** Items: the pool file, and the configuration's model called directly (two turns per exam). */
export async function itemRunner(paths: ProjectPaths, run: ExamRunFile): Promise<ExamRunner> {
  const pool = itemPool(paths, run);
  const { config, model } = await modelOf(paths, run.agent.name);
  return {
    ...pool,
    agent: { name: config.name, digest: config.digest, harness: "exam-items", model: config.model },
    provider: config.provider,
    runOne: (spec, attempt) =>
      runItemExam(spec, pool.items, {
        model,
        pricing: config.pricing,
        budget: run.budget,
        temperature: config.temperature,
        signal: attempt.signal,
      }),
  };
}

/** The task ids of `--tasks` (`all`: every valid task of the project). */
export function taskIds(paths: ProjectPaths, source: string): string[] {
  if (source === "all") return loadAllTasks(paths).flatMap((t) => (t.ok ? [t.id] : []));
  return source
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

/** The tasks of `--tasks` / `--inline-tasks`, loaded, and their digest as the pool's. */
function loadedTasks(paths: ProjectPaths, run: ExamRunFile) {
  const tasks = new Map<string, LoadedTask>(
    taskIds(paths, run.pool.source).map((id) => [id, loadValidTask(paths, id)]),
  );
  const digests = [...tasks.values()].map((t) => `${t.id}:${t.digests.task}:${t.digests.environment}`).sort();
  const reference = referenceOf(paths, run);
  return {
    tasks,
    poolDigest: sha256(digests.join("\n")),
    reference,
    units: [...tasks.values()].map((t) => ({ id: t.id, difficulty: difficulty(undefined, t.id, reference) })),
  };
}

function inlinePool(paths: ProjectPaths, run: ExamRunFile) {
  const condition = run.condition ?? "+A";
  const loaded = loadedTasks(paths, run);
  // a task that has no inline form is refused before any exam runs
  for (const task of loaded.tasks.values()) inlineQuestion(task, condition);
  const config = agentConfig(paths, run.agent.name);
  return {
    ...loaded,
    condition,
    config,
    bound: (spec: ExamSpec) => {
      const { tasks, questions } = inlineExamQuestions(spec, loaded.tasks, condition);
      return twoTurnBound(
        config.pricing,
        examPrompt(questions, run.budget, spec.prompt, spec.nameQuestions),
        run.budget,
        { prompt: inlineExtractionPrompt(tasks), maxOutputTokens: inlineExtractionTokens(tasks) },
      );
    },
  };
}

/** Inline tasks: the library tasks in their inline form, the configuration's model called directly. */
export async function inlineTaskRunner(paths: ProjectPaths, run: ExamRunFile): Promise<ExamRunner> {
  const pool = inlinePool(paths, run);
  const { config, model } = await modelOf(paths, run.agent.name);
  return {
    ...pool,
    agent: { name: config.name, digest: config.digest, harness: "exam-inline-tasks", model: config.model },
    provider: config.provider,
    runOne: (spec, attempt) =>
      runInlineTaskExam(spec, {
        model,
        pricing: config.pricing,
        tasks: pool.tasks,
        condition: pool.condition,
        budget: run.budget,
        temperature: config.temperature,
        signal: attempt.signal,
      }),
  };
}

function taskPool(paths: ProjectPaths, run: ExamRunFile) {
  const loaded = loadedTasks(paths, run);
  const config = loadAgentConfigs(paths).agents.find((a) => a.name === run.agent.name) ?? null;
  return { ...loaded, config, bound: () => sessionBound(config, run.budget) };
}

/** The run's pool by kind, with no model loaded and no sandbox started (--estimate). */
export function examPool(paths: ProjectPaths, run: ExamRunFile): ExamPool {
  if (run.kind === "items") return itemPool(paths, run);
  if (run.kind === "inline-tasks") return inlinePool(paths, run);
  return taskPool(paths, run);
}

/** Tasks: the library tasks, one sandbox per exam, a built-in-loop agent session. */
export async function taskRunner(
  paths: ProjectPaths,
  run: ExamRunFile,
  log: (line: string) => void,
): Promise<ExamRunner> {
  const pool = taskPool(paths, run);
  const { tasks } = pool;
  const agent: Agent = await resolveAgent(paths, run.agent.name, { log });
  if (agent.harness !== "builtin")
    throw new Error(`a task exam needs a built-in-loop agent; "${agent.name}" runs ${agent.harness}`);
  // the sweep, the image and the agent in the order every sandboxed verb opens them
  const sandbox = await openSandboxRunner({ paths, agents: [agent], log });
  const { provider, image } = sandbox;
  const requirements = await sandbox.add(agent);
  const context = {
    agent,
    tasks,
    condition: run.condition ?? "+A",
    provider,
    image,
    budget: run.budget,
    runId: run.runId,
    runDir: path.join(paths.runs, run.runId),
    requirements,
    verify: defaultVerify(paths),
    phases: configuredPhaseBounds(paths),
  };
  return {
    ...pool,
    agent: { name: agent.name, digest: agent.digest, harness: agent.harness, model: agent.model },
    provider: modelProviderOf(agent),
    runOne: (spec, attempt) => runTaskExam(spec, context, attempt),
    dispose: sandbox.close,
  };
}
