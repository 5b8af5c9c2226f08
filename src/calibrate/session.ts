// One `kgate calibrate` session, argv aside: select tasks or reload a plan, refuse a resume whose
// digests drifted, hold the run's lock, run the wanted trials with progress, write the reports.
// The trial machinery comes in through a Backend, so the flow is the same for real and fake runs.
import { mkdirSync, rmSync } from "node:fs";
import type { Writable } from "node:stream";
import type { CostCaps } from "../cost/index.ts";
import { kgateVersion } from "../package-info.ts";
import { type ProjectPaths, relativeToProject } from "../project.ts";
import type { TrialRecord } from "../record/index.ts";
import type { RunSummary } from "../report/index.ts";
import { type LoadedTask, loadAllTasks, loadTask, loadValidTask } from "../task/index.ts";
import { type JudgeCallsBound, newRunId } from "../trial/index.ts";
import { priceCeiling, UnpricedCeiling } from "./budget.ts";
import type { CalibrationConfig } from "./config.ts";
import { judgeBoundsOf, judgeWorstCases, missingJudges } from "./judges.ts";
import {
  type AgentInfo,
  buildPlan,
  type Plan,
  type PlanCeiling,
  type PlanMonitoring,
  planDrift,
  type SandboxInfo,
} from "./plan.ts";
import { Progress } from "./progress.ts";
import { readRecords, summariseRun, writeReports } from "./reports.ts";
import { acquireLock, type RunDir, readPlan, rewritePlanCeiling, runDir, writePlan } from "./rundir.ts";
import { type CellRunner, runCalibration, type SchedulerResult } from "./scheduler.ts";
import { tallyRecords } from "./tally.ts";

/** A calibration that cannot start: bad selection, unknown agent, drifted digests, a held lock. */
export class CalibrationError extends Error {
  override name = "CalibrationError";
}

export interface StartedBackend {
  runner: CellRunner;
  /** Releases what start() acquired (prepared agents, relays). */
  stop(): Promise<void>;
}

/** The trial machinery: real (Docker, model providers) in the CLI, in-process in tests. */
export interface Backend {
  /** Describes agent configurations; a name it does not know is left out of the map. */
  agents(names: readonly string[]): Promise<Map<string, AgentInfo>>;
  /** Prepares everything trials need (image, agents) once per session. */
  start(plan: Plan, tasks: ReadonlyMap<string, LoadedTask>): Promise<StartedBackend>;
  /** The API keys the named agents need and the environment lacks (checked before anything is created). */
  missingKeys?(names: readonly string[]): Promise<MissingKey[]>;
  /** Where trials run (provider, host, image id); null when the backend runs no sandbox. */
  sandbox?(): Promise<SandboxInfo | null>;
  /** Pings the named agents' endpoints once: the refusal naming each that did not answer, else null. */
  ping?(names: readonly string[]): Promise<string | null>;
}

/** An agent configuration whose API key variable is not set. */
export interface MissingKey {
  agent: string;
  env: string;
}

/** Every missing key at once, with where to look and what to change; before any sandbox or run directory. */
async function requireKeys(o: SessionOptions, backend: Backend, names: readonly string[]): Promise<void> {
  const missing = (await backend.missingKeys?.(names)) ?? [];
  if (missing.length === 0) return;
  const file = relativeToProject(o.paths, o.paths.config);
  throw new CalibrationError(
    `cannot start: ${missing.length} agent configuration(s) need an API key that is not set:\n` +
      `${missing.map((m) => `  ${m.agent}: ${m.env}`).join("\n")}\n` +
      `set ${missing.length > 1 ? "them" : "it"} in the environment, see \`kgate agents\` for what each agent needs, ` +
      `pick other agents with --frontier / --mid, or edit "agents" in ${file}`,
  );
}

/** The tasks' judges (judge criteria) and their keys, required like the agents' before anything starts. */
async function requireJudges(
  o: SessionOptions,
  tasks: readonly LoadedTask[],
): Promise<Map<string, JudgeCallsBound[]>> {
  const bounds = await judgeBoundsOf(tasks);
  const missing = missingJudges(o.paths, bounds);
  if (missing.length === 0) return bounds;
  throw new CalibrationError(
    `cannot start: ${missing.length} task judge(s) cannot be asked (their trials would all be \`judge\` errors):\n` +
      `${missing.map((m) => `  ${m}`).join("\n")}\n` +
      `set the key in the environment, or edit "agents" in ${relativeToProject(o.paths, o.paths.config)}`,
  );
}

/** Every agent's and judge's endpoint answers before the sandbox is prepared (the backend's ping, if any). */
async function requireAnswers(
  backend: Backend,
  agents: readonly string[],
  judges: ReadonlyMap<string, JudgeCallsBound[]>,
): Promise<void> {
  const names = [...agents, ...[...judges.values()].flat().map((j) => j.config)];
  const refusal = (await backend.ping?.([...new Set(names)])) ?? null;
  if (refusal !== null) throw new CalibrationError(refusal);
}

/** The sandbox of a backend, as a calibration error when it cannot be prepared. */
async function sandboxOf(backend: Backend): Promise<SandboxInfo | null> {
  try {
    return (await backend.sandbox?.()) ?? null;
  } catch (err) {
    throw new CalibrationError(
      `${(err as Error).message}\n(run \`kgate sandbox doctor\` to see what is missing)`,
    );
  }
}

export interface SessionOptions {
  paths: ProjectPaths;
  config: CalibrationConfig;
  /** Task ids; empty = every valid task. Ignored on resume. */
  taskIds: readonly string[];
  /** A run id or directory to resume. */
  resume?: string;
  runId?: string;
  /** Stops new trials; running ones are cancelled by the runner. */
  signal?: AbortSignal;
  /** Progress and warnings go here (stderr). */
  stderr: Writable & { isTTY?: boolean; rows?: number };
  /** Live progress; default: stderr is a TTY and CI is not set. */
  live?: boolean;
  /** The monitoring a new run asks (kept in its plan); ignored on resume, where the plan's holds. */
  monitoring?: PlanMonitoring | null;
  /**
   * The cost ceiling: `ceilingUsd` is --max-cost (a new run's, or a resume's new one; absent: a resume
   * keeps the plan's), `caps` each agent configuration's caps and prices (null: unknown), to price it.
   */
  maxCost?: { ceilingUsd?: number; caps: (agent: string) => CostCaps | null };
  /** Each trial's record as it is written (the library's progress event). */
  onTrial?: (record: TrialRecord) => void;
}

/**
 * The run's cost ceiling priced for this session: --max-cost's, else the plan's (null: none). Every
 * agent of the plan must have prices, or the ceiling cannot be kept. Without caps the plan's stand.
 */
function sessionCeiling(
  o: SessionOptions,
  plan: Pick<Plan, "cells" | "ceiling">,
  tasks: ReadonlyMap<string, LoadedTask>,
  judges: ReadonlyMap<string, JudgeCallsBound[]>,
): PlanCeiling | null {
  const usd = o.maxCost?.ceilingUsd ?? plan.ceiling?.usd;
  if (usd === undefined) return null;
  if (!o.maxCost) return plan.ceiling ?? null;
  try {
    return priceCeiling(usd, plan.cells, tasks, o.maxCost.caps, judgeWorstCases(o.paths, judges));
  } catch (err) {
    if (!(err instanceof UnpricedCeiling)) throw err;
    throw new CalibrationError(
      `${err.message} (set agents.<name>.pricing in ${relativeToProject(o.paths, o.paths.config)})`,
    );
  }
}

export interface SessionResult {
  run: RunDir;
  plan: Plan;
  summary: RunSummary;
  engine: SchedulerResult;
  /** Report files written. */
  reports: string[];
}

function selectTasks(o: SessionOptions): LoadedTask[] {
  if (o.taskIds.length > 0) {
    return o.taskIds.map((id) => {
      try {
        return loadValidTask(o.paths, id);
      } catch (err) {
        throw new CalibrationError((err as Error).message);
      }
    });
  }
  const all = loadAllTasks(o.paths);
  for (const r of all) {
    if (!r.ok) o.stderr.write(`warning: skipping invalid task "${r.id}" (see kgate list)\n`);
  }
  const valid = all.flatMap((r) => (r.ok ? [r.task] : []));
  if (valid.length === 0) throw new CalibrationError(`no valid task in ${o.paths.tasks}`);
  return valid;
}

/** The backend's agent descriptions; a configuration it cannot read is a calibration error too. */
async function describeAgents(backend: Backend, names: readonly string[]): Promise<Map<string, AgentInfo>> {
  try {
    return await backend.agents(names);
  } catch (err) {
    throw new CalibrationError((err as Error).message);
  }
}

async function resolveAgents(backend: Backend, names: readonly string[]): Promise<Map<string, AgentInfo>> {
  const known = await describeAgents(backend, names);
  const missing = names.filter((n) => !known.has(n));
  if (missing.length > 0) {
    throw new CalibrationError(
      `unknown agent configuration(s): ${missing.join(", ")} (define them under "agents" in kgate.config.json, ` +
        "or use --frontier / --mid / --cell to pick others)",
    );
  }
  return known;
}

async function newRun(
  o: SessionOptions,
  backend: Backend,
): Promise<{ run: RunDir; plan: Plan; tasks: LoadedTask[]; judges: Map<string, JudgeCallsBound[]> }> {
  const tasks = selectTasks(o);
  const names = [...new Set(o.config.cells.map((c) => c.agent))];
  const agents = await resolveAgents(backend, names);
  await requireKeys(o, backend, names);
  const judges = await requireJudges(o, tasks);
  await requireAnswers(backend, names, judges);
  const sandbox = await sandboxOf(backend);
  const run = runDir(o.paths, o.runId ?? newRunId("cal"));
  let plan: Plan;
  try {
    plan = buildPlan({
      runId: run.id,
      config: o.config,
      tasks,
      resolveAgent: (name) => agents.get(name)!,
      provenance: { kgateVersion: kgateVersion(), sandbox },
      monitoring: o.monitoring ?? null,
    });
    plan.ceiling = sessionCeiling(o, plan, new Map(tasks.map((t) => [t.id, t])), judges);
    mkdirSync(run.dir, { recursive: true });
    writePlan(run, plan);
  } catch (err) {
    if (err instanceof CalibrationError) throw err;
    throw new CalibrationError((err as Error).message);
  }
  return { run, plan, tasks, judges };
}

async function resumedRun(o: SessionOptions, backend: Backend, name: string) {
  const run = runDir(o.paths, name);
  let plan: Plan;
  try {
    plan = readPlan(run);
  } catch (err) {
    throw new CalibrationError((err as Error).message);
  }
  const tasks = new Map<string, LoadedTask>();
  for (const t of plan.tasks) {
    const result = loadTask(o.paths, t.id);
    if (result.ok) tasks.set(t.id, result.task);
  }
  const agents = await describeAgents(
    backend,
    plan.agents.map((a) => a.name),
  );
  await requireKeys(
    o,
    backend,
    plan.agents.map((a) => a.name),
  );
  const judges = await requireJudges(o, [...tasks.values()]);
  await requireAnswers(
    backend,
    plan.agents.map((a) => a.name),
    judges,
  );
  const drift = planDrift(plan, { tasks, agents, sandbox: await sandboxOf(backend) });
  if (drift.length > 0) {
    throw new CalibrationError(
      `cannot resume ${run.shown}: the project changed since the plan was written\n` +
        `${drift.map((d) => `  ${d}`).join("\n")}\n` +
        "results made with different inputs must not be mixed: start a new run, or restore what changed",
    );
  }
  return { run, plan, tasks: [...tasks.values()], judges };
}

/** A resume's ceiling into its plan (and plan.json) when it differs: a new --max-cost, or prices anew. */
function keepCeiling(run: RunDir, plan: Plan, ceiling: PlanCeiling | null): void {
  if (JSON.stringify(ceiling) === JSON.stringify(plan.ceiling ?? null)) return;
  plan.ceiling = ceiling;
  rewritePlanCeiling(run, plan);
}

/** Starts the backend; a new run that cannot start leaves no directory behind (it holds only its plan). */
async function startOrForget(
  backend: Backend,
  plan: Plan,
  tasks: ReadonlyMap<string, LoadedTask>,
  fresh: RunDir | null,
): Promise<StartedBackend> {
  try {
    return await backend.start(plan, tasks);
  } catch (err) {
    if (fresh) rmSync(fresh.dir, { recursive: true, force: true });
    throw err;
  }
}

export async function calibrate(o: SessionOptions, backend: Backend): Promise<SessionResult> {
  const { run, plan, tasks, judges } = o.resume
    ? await resumedRun(o, backend, o.resume)
    : await newRun(o, backend);
  let release: () => void;
  try {
    release = acquireLock(run);
  } catch (err) {
    throw new CalibrationError((err as Error).message);
  }
  const taskMap = new Map(tasks.map((t) => [t.id, t]));
  let engine: SchedulerResult;
  try {
    const { records, problems } = readRecords(run);
    for (const p of problems) o.stderr.write(`warning: ${p}\n`);
    if (o.resume) keepCeiling(run, plan, sessionCeiling(o, plan, taskMap, judges));
    const started = await startOrForget(backend, plan, taskMap, o.resume ? null : run);
    const progress = new Progress(plan, tallyRecords(plan, records), {
      stream: o.stderr,
      live: o.live,
      records,
      onTrial: o.onTrial,
    });
    try {
      engine = await runCalibration({
        plan,
        runDir: run.dir,
        tasks: taskMap,
        runner: started.runner,
        records,
        concurrency: o.config.concurrency,
        providerLimits: o.config.providerConcurrency,
        signal: o.signal,
        events: progress,
      });
    } finally {
      progress.close();
      await started.stop();
    }
    for (const task of engine.curtailed) {
      o.stderr.write(
        `curtailed: ${task}: its remaining trials were skipped (no outcome of them changes its decision)\n`,
      );
    }
  } finally {
    release();
  }
  const summary = summariseRun(run);
  return { run, plan, summary, engine, reports: writeReports(summary, run) };
}
