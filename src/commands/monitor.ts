// `kgate monitor analyse <dir>`: the battery's analysis of published response CSVs: the per-track
// CSV (--csv), a Markdown table (default), an HTML page (--html <file>) or JSON (--json).
import { existsSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { EXIT_FAILED, EXIT_OK, UsageError } from "../errors.ts";
import {
  analyseBattery,
  batteryCsv,
  batteryHtml,
  batteryMarkdown,
  type ImportProblem,
  importPublished,
} from "../monitor/index.ts";
import type { CommandContext } from "./context.ts";

export interface AnalyseOptions {
  csv?: boolean;
  json?: boolean;
  html?: string;
  seed?: string;
  resamples?: string;
}

function positiveInteger(option: string, text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1)
    throw new UsageError(`${option}: "${text}" is not a positive integer`);
  return value;
}

const problemLine = (p: ImportProblem) => `${p.file}${p.line === null ? "" : `:${p.line}`}: ${p.message}`;

export async function analyse(ctx: CommandContext, dir: string, options: AnalyseOptions): Promise<number> {
  const root = path.resolve(dir);
  if (!existsSync(root) || !statSync(root).isDirectory()) throw new UsageError(`${dir}: no such folder`);
  if ([options.csv, options.json].filter(Boolean).length > 1)
    throw new UsageError("--csv and --json exclude each other");
  const seed = positiveInteger("--seed", options.seed ?? "42");
  const resamples = positiveInteger("--resamples", options.resamples ?? "2000");
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
