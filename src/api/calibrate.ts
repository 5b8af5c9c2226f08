// The library's calibration: the CLI's `kgate calibrate` as a function. The project's configuration
// with a few overrides, trials in the project's sandbox (Docker), progress as lines, an AbortSignal
// that stops new trials and cancels running ones, and the typed summary with each task's decision.
import { Writable } from "node:stream";
import { type Agent, loadAgentConfigs } from "../agents/index.ts";
import {
  applyOverrides,
  type CalibrationConfig,
  CalibrationError,
  type ConfigOverrides,
  calibrate as calibrateSession,
  loadCalibrationConfig,
  type PlanMonitoring,
  readPlan,
  runDir,
  sandboxBackend,
} from "../calibrate/index.ts";
import { UsageError } from "../errors.ts";
import { askRetrospectiveQuestions, type PayoffSchedule, prospectiveHookFor } from "../monitor/index.ts";
import type { ProjectPaths } from "../project.ts";
import type { TrialRecord } from "../record/index.ts";
import type { RunSummary } from "../report/index.ts";
import { formatProblem } from "../task/index.ts";
import { sweepAfterAbort } from "./abort.ts";
import type { Project } from "./project.ts";

export interface CalibrateOptions {
  /** Task ids (empty or absent: every valid task of the project). */
  tasks?: readonly string[];
  /** Overrides of kgate.config.json's `calibration` (the CLI's -n, --concurrency, --cell, --frontier ...). */
  overrides?: ConfigOverrides;
  /** The calibration settings in full, instead of kgate.config.json's (`overrides` then ignored). */
  config?: CalibrationConfig;
  /** The run's id (default: a new `cal-...` id); the run is written to runs/<id>/. */
  runId?: string;
  /** Resume this run (an id or folder) instead of starting one: its plan is kept. */
  resume?: string;
  /** Abort: no new trial starts, running ones are cancelled and recorded as cancelled. */
  signal?: AbortSignal;
  /** Each progress line (what the CLI writes on stderr), without its line break. */
  onProgress?: (line: string) => void;
  /** Each trial's record as it is written (infrastructure attempts that are retried included). */
  onTrial?: (record: TrialRecord) => void;
  /** Progress written here instead of `onProgress` (a TTY outside CI gets the live line, as the CLI's stderr). */
  progressStream?: Writable & { isTTY?: boolean; rows?: number };
  /** The monitoring a new run asks (the CLI's --monitor, --prospective --payoff); a resume asks its plan's. */
  monitoring?: PlanMonitoring | null;
  /** The run's cost ceiling in USD (--max-cost), kept in its plan; absent, a resume keeps the plan's. */
  maxCostUsd?: number;
  /** false: no ping of the agents' endpoints before the first trial (default true). */
  ping?: boolean;
}

export interface CalibrationResult {
  runId: string;
  /** The run's folder: plan.json, trials.jsonl, summary.json and the reports. */
  runDir: string;
  summary: RunSummary;
  /** Report files written. */
  reports: string[];
  /** The records of trials that stopped on an error of kgate itself (a bug to report; `error.stack`). */
  internalErrors: TrialRecord[];
  /** The signal stopped the run before every planned trial ran (resume it with `resume`). */
  interrupted: boolean;
}

/** A configuration or a plan that cannot run: the message says what to change (the CLI's exit 2). */
export class CalibrationSetupError extends UsageError {
  override name = "CalibrationSetupError";
}

/** A stream that hands each complete line to `onLine`. */
function lineStream(onLine: (line: string) => void): Writable {
  let pending = "";
  return new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      const lines = (pending + chunk.toString()).split("\n");
      pending = lines.pop()!;
      for (const line of lines) onLine(line);
      done();
    },
    final(done) {
      if (pending) onLine(pending);
      done();
    },
  });
}

/** The calibration settings: `options.config`, or kgate.config.json's with `options.overrides`. */
function configOf(paths: ProjectPaths, options: CalibrateOptions): CalibrationConfig {
  if (options.config) return options.config;
  const loaded = loadCalibrationConfig(paths);
  if (!loaded.ok) throw new CalibrationSetupError(loaded.errors.map(formatProblem).join("\n"));
  try {
    return applyOverrides(loaded.config, options.overrides ?? {});
  } catch (err) {
    throw new CalibrationSetupError((err as Error).message);
  }
}

/** The cost ceiling with every configuration's caps and prices to price it. */
function maxCostOf(paths: ProjectPaths, ceilingUsd: number | undefined) {
  const configs = new Map(loadAgentConfigs(paths).agents.map((a) => [a.name, a]));
  return { ceilingUsd, caps: (agent: string) => configs.get(agent) ?? null };
}

/** The monitoring of the run: a new run's from the options, a resumed run's from its plan. */
function monitoringOf(paths: ProjectPaths, options: CalibrateOptions): PlanMonitoring | null {
  if (!options.resume) return options.monitoring ?? null;
  try {
    return readPlan(runDir(paths, options.resume)).monitoring ?? null;
  } catch {
    return null; // the session reports the unreadable plan
  }
}

const prospectiveFor = (schedule: PayoffSchedule) => (agent: Agent) => prospectiveHookFor(agent, schedule);

/** Calibrates the project's tasks (every cell's trials, the retain rule, the reports). */
export async function calibrate(
  project: Project,
  options: CalibrateOptions = {},
): Promise<CalibrationResult> {
  const { paths } = project;
  const config = configOf(paths, options);
  const stream = options.progressStream;
  const progress = stream ? (line: string) => stream.write(`${line}\n`) : (options.onProgress ?? (() => {}));
  const lines = stream ? undefined : lineStream(progress);
  const monitoring = monitoringOf(paths, options);
  let runId = options.resume ?? options.runId;
  try {
    const result = await calibrateSession(
      {
        paths,
        config,
        taskIds: options.tasks ?? [],
        resume: options.resume,
        runId: options.runId,
        signal: options.signal,
        stderr: stream ?? lines!,
        ...(stream ? {} : { live: false }),
        monitoring,
        maxCost: maxCostOf(paths, options.maxCostUsd),
        onTrial: options.onTrial,
      },
      sandboxBackend({
        paths,
        log: progress,
        ping: options.ping,
        ...(monitoring?.probes ? { followUp: askRetrospectiveQuestions } : {}),
        ...(monitoring?.prospective ? { prospectiveFor: prospectiveFor(monitoring.prospective) } : {}),
      }),
    );
    runId = result.run.id;
    return {
      runId: result.run.id,
      runDir: result.run.dir,
      summary: result.summary,
      reports: result.reports,
      internalErrors: result.engine.internal,
      interrupted: result.engine.interrupted,
    };
  } catch (err) {
    if (err instanceof CalibrationError) throw new CalibrationSetupError(err.message);
    throw err;
  } finally {
    lines?.end();
    if (runId) await sweepAfterAbort(paths, runId, options.signal, progress);
  }
}
