// `kgate monitor analyse <dir>`: the battery's analysis of published response CSVs: the per-track
// CSV (--csv), the leaderboard CSV (--leaderboard), a Markdown table (default), an HTML page
// (--html <file>) or JSON (--json); or, given a run (a folder with trials.jsonl, or a run id), the
// monitoring analysis of its probed trials.
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
  leaderboardCsv,
  ProfileRule,
  runMonitoringMarkdown,
} from "../monitor/index.ts";
import { readTrialRecords, runDirOf, trialsFileOf } from "../trial/index.ts";
import type { CommandContext } from "./context.ts";
import { integerOption } from "./options.ts";

export interface AnalyseOptions {
  csv?: boolean;
  leaderboard?: boolean;
  json?: boolean;
  profileRule?: string;
  html?: string;
  seed?: string;
  resamples?: string;
}

const problemLine = (p: ImportProblem) => `${p.file}${p.line === null ? "" : `:${p.line}`}: ${p.message}`;

type Settings = { seed: number; resamples: number; profileRule: ProfileRule };

function profileRuleOf(text: string | undefined): ProfileRule {
  const rule = ProfileRule.safeParse(text ?? "stated");
  if (!rule.success)
    throw new UsageError(`--profile-rule: "${text}" is not one of ${ProfileRule.options.join(", ")}`);
  return rule.data;
}

function analyseRun(
  ctx: CommandContext,
  runDir: string,
  options: AnalyseOptions,
  settings: Settings,
): number {
  if (options.csv || options.leaderboard || options.html)
    throw new UsageError("--csv, --leaderboard and --html are for the published format, not a run");
  const { records, problems } = readTrialRecords(runDir);
  for (const p of problems) ctx.stderr.write(`unreadable: ${p.file}:${p.line}: ${p.message}\n`);
  const analysis = analyseRunRecords(records, settings);
  ctx.stdout.write(
    options.json ? `${JSON.stringify({ runDir, ...analysis }, null, 2)}\n` : runMonitoringMarkdown(analysis),
  );
  return problems.length > 0 ? EXIT_FAILED : EXIT_OK;
}

export async function analyse(ctx: CommandContext, dir: string, options: AnalyseOptions): Promise<number> {
  if ([options.csv, options.leaderboard, options.json].filter(Boolean).length > 1)
    throw new UsageError("--csv, --leaderboard and --json exclude each other");
  const settings: Settings = {
    seed: integerOption("--seed", options.seed ?? "42", { min: 1 }),
    resamples: integerOption("--resamples", options.resamples ?? "2000", { min: 1 }),
    profileRule: profileRuleOf(options.profileRule),
  };
  const asRun = [path.resolve(dir), runDirOf(ctx.paths, dir)].find((d) => existsSync(trialsFileOf(d)));
  if (asRun) return analyseRun(ctx, asRun, options, settings);
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
  const intervals = !(options.csv || options.leaderboard) || options.html !== undefined;
  const analysis = analyseBattery(imported.responses, { ...settings, intervals });
  if (options.html) {
    const title = `Monitoring analysis of ${path.basename(root)}`;
    writeFileSync(options.html, batteryHtml(analysis, imported.problems, title));
    ctx.stderr.write(`wrote ${options.html}\n`);
  }
  if (options.csv) ctx.stdout.write(batteryCsv(analysis));
  else if (options.leaderboard) ctx.stdout.write(leaderboardCsv(analysis.leaderboard));
  else if (options.json)
    ctx.stdout.write(
      `${JSON.stringify({ source: root, ...analysis, problems: imported.problems }, null, 2)}\n`,
    );
  else ctx.stdout.write(batteryMarkdown(analysis, imported.problems));
  return imported.problems.length > 0 ? EXIT_FAILED : EXIT_OK;
}
