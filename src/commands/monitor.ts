// `kgate monitor analyse <dir>`: the battery's analysis of published response CSVs: the per-track
// CSV (--csv), a Markdown table (default), an HTML page (--html <file>) or JSON (--json); or, given a
// run (a folder with trials.jsonl, or a run id), the monitoring analysis of its probed trials.
import { existsSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { EXIT_FAILED, EXIT_OK, UsageError } from "../errors.ts";
import {
  analyseBattery,
  analyseRunRecords,
  batteryCsv,
  batteryHtml,
  batteryMarkdown,
  type ImportProblem,
  importPublished,
  runMonitoringMarkdown,
} from "../monitor/index.ts";
import { readTrialRecords, runDirOf, trialsFileOf } from "../trial/index.ts";
import type { CommandContext } from "./context.ts";
import { integerOption } from "./options.ts";

export interface AnalyseOptions {
  csv?: boolean;
  json?: boolean;
  html?: string;
  seed?: string;
  resamples?: string;
}

const problemLine = (p: ImportProblem) => `${p.file}${p.line === null ? "" : `:${p.line}`}: ${p.message}`;

type Bootstrap = { seed: number; resamples: number };

function analyseRun(
  ctx: CommandContext,
  runDir: string,
  options: AnalyseOptions,
  bootstrap: Bootstrap,
): number {
  if (options.csv || options.html)
    throw new UsageError("--csv and --html are for the published format, not a run");
  const { records, problems } = readTrialRecords(runDir);
  for (const p of problems) ctx.stderr.write(`unreadable: ${p.file}:${p.line}: ${p.message}\n`);
  const analysis = analyseRunRecords(records, bootstrap);
  ctx.stdout.write(
    options.json ? `${JSON.stringify({ runDir, ...analysis }, null, 2)}\n` : runMonitoringMarkdown(analysis),
  );
  return problems.length > 0 ? EXIT_FAILED : EXIT_OK;
}

export async function analyse(ctx: CommandContext, dir: string, options: AnalyseOptions): Promise<number> {
  if ([options.csv, options.json].filter(Boolean).length > 1)
    throw new UsageError("--csv and --json exclude each other");
  const seed = integerOption("--seed", options.seed ?? "42", { min: 1 });
  const resamples = integerOption("--resamples", options.resamples ?? "2000", { min: 1 });
  const asRun = [path.resolve(dir), runDirOf(ctx.paths, dir)].find((d) => existsSync(trialsFileOf(d)));
  if (asRun) return analyseRun(ctx, asRun, options, { seed, resamples });
  const root = path.resolve(dir);
  if (!existsSync(root) || !statSync(root).isDirectory())
    throw new UsageError(`${dir}: no such folder or run`);
  const imported = importPublished(root);
  if (imported.files.length === 0) {
    for (const p of imported.problems) ctx.stderr.write(`${problemLine(p)}\n`);
    throw new UsageError(
      `${dir}: no readable response file in a track folder (Meta Cog/, prospective/, ...)`,
    );
  }
  for (const p of imported.problems) ctx.stderr.write(`unreadable: ${problemLine(p)}\n`);
  ctx.stderr.write(
    `read ${imported.responses.length} responses from ${imported.files.length} files` +
      `${imported.problems.length ? `; ${imported.problems.length} problem(s)` : ""}\n`,
  );
  const analysis = analyseBattery(imported.responses, { seed, resamples });
  if (options.html) {
    const title = `Monitoring analysis of ${path.basename(root)}`;
    writeFileSync(options.html, batteryHtml(analysis, imported.problems, title));
    ctx.stderr.write(`wrote ${options.html}\n`);
  }
  if (options.csv) ctx.stdout.write(batteryCsv(analysis));
  else if (options.json)
    ctx.stdout.write(
      `${JSON.stringify({ source: root, ...analysis, problems: imported.problems }, null, 2)}\n`,
    );
  else ctx.stdout.write(batteryMarkdown(analysis, imported.problems));
  return imported.problems.length > 0 ? EXIT_FAILED : EXIT_OK;
}
