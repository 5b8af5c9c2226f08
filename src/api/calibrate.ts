// The library's calibration: the CLI's `kgate calibrate` as a function. The project's configuration
// with a few overrides, trials in the project's sandbox (Docker), progress as lines, an AbortSignal
// that stops new trials and cancels running ones, and the typed summary with each task's decision.
import { Writable } from "node:stream";
import {
  applyOverrides,
  CalibrationError,
  type ConfigOverrides,
  calibrate as calibrateSession,
  loadCalibrationConfig,
  sandboxBackend,
} from "../calibrate/index.ts";
import type { RunSummary } from "../report/index.ts";
import { formatProblem } from "../task/index.ts";
import type { Project } from "./project.ts";

export interface CalibrateOptions {
  /** Task ids (empty or absent: every valid task of the project). */
  tasks?: readonly string[];
  /** Overrides of kgate.config.json's `calibration` (the CLI's -n, --concurrency, --cell, --frontier ...). */
  overrides?: ConfigOverrides;
  /** The run's id (default: a new `cal-...` id); the run is written to runs/<id>/. */
  runId?: string;
  /** Resume this run (an id or folder) instead of starting one: its plan is kept. */
  resume?: string;
  /** Abort: no new trial starts, running ones are cancelled and recorded as cancelled. */
  signal?: AbortSignal;
  /** Each progress line (what the CLI writes on stderr), without its line break. */
  onProgress?: (line: string) => void;
}

export interface CalibrationResult {
  runId: string;
  /** The run's folder: plan.json, trials.jsonl, summary.json and the reports. */
  runDir: string;
  summary: RunSummary;
  /** Report files written. */
  reports: string[];
  /** Trials that stopped on an error of kgate itself (a bug to report), by trial id. */
  internalErrors: string[];
  /** The signal stopped the run before every planned trial ran (resume it with `resume`). */
  interrupted: boolean;
}

/** A configuration or a plan that cannot run: the message says what to change. */
export class CalibrationSetupError extends Error {
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

/** Calibrates the project's tasks (every cell's trials, the retain rule, the reports). */
export async function calibrate(
  project: Project,
  options: CalibrateOptions = {},
): Promise<CalibrationResult> {
  const { paths } = project;
  const loaded = loadCalibrationConfig(paths);
  if (!loaded.ok) throw new CalibrationSetupError(loaded.errors.map(formatProblem).join("\n"));
  let config: ReturnType<typeof applyOverrides>;
  try {
    config = applyOverrides(loaded.config, options.overrides ?? {});
  } catch (err) {
    throw new CalibrationSetupError((err as Error).message);
  }
  const progress = options.onProgress ?? (() => {});
  const stderr = lineStream(progress);
  try {
    const result = await calibrateSession(
      {
        paths,
        config,
        taskIds: options.tasks ?? [],
        resume: options.resume,
        runId: options.runId,
        signal: options.signal,
        stderr,
        live: false,
      },
      sandboxBackend({ paths, log: progress }),
    );
    return {
      runId: result.run.id,
      runDir: result.run.dir,
      summary: result.summary,
      reports: result.reports,
      internalErrors: result.engine.internal.map((e) => e.trialId),
      interrupted: result.engine.interrupted,
    };
  } catch (err) {
    if (err instanceof CalibrationError) throw new CalibrationSetupError(err.message);
    throw err;
  } finally {
    stderr.end();
  }
}
