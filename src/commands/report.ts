// `kgate report <run>`: the reports of a calibration run from its files alone (plan and records):
// the Markdown report on stdout (or the summary with --json, Table 1 as CSV or LaTeX with
// --format), and summary.json, report.md, report.svg, report.html, table1.csv and table1.tex
// written into the run directory (or --out).
import { report } from "../api/index.ts";
import { EXIT_OK, UsageError } from "../errors.ts";
import { relativeToProject } from "../project.ts";
import { markdownReport, type RunSummary, table1Csv, table1Latex } from "../report/index.ts";
import type { CommandContext } from "./context.ts";

export interface ReportOptions {
  json?: boolean;
  format?: string;
  out?: string;
}

const FORMATS: Record<string, (s: RunSummary) => string> = {
  md: markdownReport,
  json: (s) => `${JSON.stringify(s, null, 2)}\n`,
  csv: table1Csv,
  latex: table1Latex,
};

export async function run(ctx: CommandContext, runName: string, options: ReportOptions): Promise<number> {
  const format = options.json ? "json" : (options.format ?? "md");
  const print = FORMATS[format];
  if (!print)
    throw new UsageError(`--format: expected one of ${Object.keys(FORMATS).join(", ")}, got "${format}"`);
  const { summary, written } = report({ paths: ctx.paths }, runName, { out: options.out });
  for (const warning of summary.warnings) ctx.stderr.write(`warning: ${warning}\n`);
  const shown = written.map((f) => {
    const rel = relativeToProject(ctx.paths, f);
    return rel.startsWith("..") ? f : rel;
  });
  ctx.stderr.write(`wrote ${shown.join(", ")}\n`);
  ctx.stdout.write(print(summary));
  return EXIT_OK;
}
