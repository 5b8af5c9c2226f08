// `kgate report <run>`: the reports of a calibration run from its files alone (plan and records):
// Table 1 in Markdown on stdout (or the summary with --json), and summary.json, report.md,
// report.svg and report.html written into the run directory (or --out).
import { existsSync } from "node:fs";
import path from "node:path";
import { runDir, summariseRun, writeReports } from "../calibrate/index.ts";
import { EXIT_OK, UsageError } from "../errors.ts";
import { relativeToProject } from "../project.ts";
import { markdownReport } from "../report/index.ts";
import type { CommandContext } from "./context.ts";

export interface ReportOptions {
  json?: boolean;
  out?: string;
}

export async function run(ctx: CommandContext, runName: string, options: ReportOptions): Promise<number> {
  const dir = runDir(ctx.paths, runName);
  let summary: ReturnType<typeof summariseRun>;
  try {
    summary = summariseRun(dir);
  } catch (err) {
    // A `kgate run` directory has trials but no plan: its trials are read with `kgate show`.
    const trialsOnly = existsSync(dir.trials) && !existsSync(dir.plan);
    const pointer = trialsOnly
      ? `; ${dir.shown} holds trials of \`kgate run\`: see them with \`kgate show ${dir.id}\``
      : "";
    throw new UsageError(`${(err as Error).message}${pointer}`);
  }
  const written = writeReports(summary, dir, options.out ? path.resolve(options.out) : dir.dir);
  for (const warning of summary.warnings) ctx.stderr.write(`warning: ${warning}\n`);
  const shown = written.map((f) => {
    const rel = relativeToProject(ctx.paths, f);
    return rel.startsWith("..") ? f : rel;
  });
  ctx.stderr.write(`wrote ${shown.join(", ")}\n`);
  ctx.stdout.write(options.json ? `${JSON.stringify(summary, null, 2)}\n` : markdownReport(summary));
  return EXIT_OK;
}
