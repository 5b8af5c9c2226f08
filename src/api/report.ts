// The library's reports (`kgate report` as a function): a calibration run's summary recomputed from
// its files alone (plan and records), and summary.json, report.md, report.svg, report.html,
// table1.csv and table1.tex written into the run's folder (or another).
import { existsSync } from "node:fs";
import path from "node:path";
import { runDir, summariseRun, writeReports } from "../calibrate/index.ts";
import { isBug, UsageError } from "../errors.ts";
import type { RunSummary } from "../report/index.ts";
import type { Project } from "./project.ts";

export interface ReportOptions {
  /** Where the report files go (default: the run's folder). */
  out?: string;
}

export interface ReportResult {
  /** The run's summary (also written as summary.json); `warnings` name what the reader should know. */
  summary: RunSummary;
  /** The files written, absolute paths. */
  written: string[];
}

/**
 * The reports of calibration run `run` (an id under runs/ or a folder). Throws a UsageError when the
 * run cannot be summarised (no plan, unreadable records), pointing at `kgate show` for a `kgate run`.
 */
export function report(project: Project, run: string, options: ReportOptions = {}): ReportResult {
  const dir = runDir(project.paths, run);
  let summary: RunSummary;
  try {
    summary = summariseRun(dir);
  } catch (err) {
    if (isBug(err)) throw err; // kgate's own bug keeps its type and stack
    // A `kgate run` directory has trials but no plan: its trials are read with `kgate show`.
    const trialsOnly = existsSync(dir.trials) && !existsSync(dir.plan);
    const pointer = trialsOnly
      ? `; ${dir.shown} holds trials of \`kgate run\`: see them with \`kgate show ${dir.id}\``
      : "";
    throw new UsageError(`${(err as Error).message}${pointer}`);
  }
  const outDir = options.out ? path.resolve(options.out) : dir.dir;
  return { summary, written: writeReports(summary, dir, outDir) };
}
