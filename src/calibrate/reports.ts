// Writes a run's reports from its files: summary.json, report.md (Table 1), report.svg (the
// chart), report.html (both, plus attribution, tokens, cost and per-trial rows), and Table 1 as
// table1.csv and table1.tex.
import path from "node:path";
import { monitoringHtmlSection, monitoringSection } from "../monitor/index.ts";
import type { TrialRecord } from "../record/index.ts";
import {
  htmlReport,
  markdownReport,
  type RunSummary,
  svgChart,
  table1Csv,
  table1Latex,
} from "../report/index.ts";
import { readTrialRecords } from "../trial/index.ts";
import { type RunDir, readPlan, writeFileAtomic } from "./rundir.ts";
import { summarise } from "./summarise.ts";

export const REPORT_FILES = [
  "summary.json",
  "report.md",
  "report.svg",
  "report.html",
  "table1.csv",
  "table1.tex",
] as const;

/** The records of a run, with each unreadable line as a worded problem (`<file>: line <n>: ...`). */
export function readRecords(run: RunDir): { records: TrialRecord[]; problems: string[] } {
  const { records, problems } = readTrialRecords(run.dir);
  return {
    records,
    problems: problems.map((p) => `${run.shown}/trials.jsonl: line ${p.line}: ${p.message}`),
  };
}

/** The summary of a run directory as it stands; unreadable record lines become warnings. */
export function summariseRun(run: RunDir, now: Date = new Date()): RunSummary {
  const plan = readPlan(run);
  const { records, problems } = readRecords(run);
  return summarise(plan, records, problems, now);
}

/** Writes the report files into `outDir` (the run directory by default); returns their paths. */
export function writeReports(summary: RunSummary, run: RunDir, outDir: string = run.dir): string[] {
  const href = path.relative(outDir, run.dir).split(path.sep).join("/");
  const { records } = readRecords(run);
  const contents: Record<(typeof REPORT_FILES)[number], string> = {
    "summary.json": `${JSON.stringify(summary, null, 2)}\n`,
    "report.md": markdownReport(summary) + monitoringSection(records),
    "report.svg": `${svgChart(summary)}\n`,
    "report.html": htmlReport(summary, { runDirHref: href }).replace(
      "</body>",
      () => `${monitoringHtmlSection(records)}</body>`,
    ),
    "table1.csv": table1Csv(summary),
    "table1.tex": table1Latex(summary),
  };
  return REPORT_FILES.map((name) => {
    const file = path.join(outDir, name);
    writeFileAtomic(file, contents[name]);
    return file;
  });
}
