// `kgate view <run...>`: the trajectory viewer over one or several calibration runs, served on
// 127.0.0.1 (live: the page re-reads the runs while trials finish) or, with --out, written as a
// self-contained static folder to zip and share.

import { existsSync } from "node:fs";
import path from "node:path";
import { readPlan, readRecords, runDir, summarise } from "../calibrate/index.ts";
import { EXIT_OK, usageOrBug } from "../errors.ts";
import {
  buildViewData,
  exportSite,
  type RunInput,
  serveSite,
  sourceOfRecords,
  sourceOfSummary,
} from "../view/index.ts";
import type { CommandContext } from "./context.ts";
import { integerOption } from "./options.ts";

export interface ViewOptions {
  out?: string;
  port?: string;
  json?: boolean;
}

function loadRuns(ctx: CommandContext, names: readonly string[]): RunInput[] {
  return names.map((name) => {
    const dir = runDir(ctx.paths, name);
    const base = { dir: dir.dir, shown: dir.shown };
    // A run of `kgate run` (or of a protocol) has records but no plan: shown from its records.
    if (!existsSync(dir.plan) && existsSync(dir.trials)) {
      const { records, problems } = readRecords(dir);
      return { ...base, records, source: sourceOfRecords(dir.id, records, problems) };
    }
    let plan: ReturnType<typeof readPlan>;
    try {
      plan = readPlan(dir);
    } catch (err) {
      throw usageOrBug(err);
    }
    const { records, problems } = readRecords(dir);
    return { ...base, records, source: sourceOfSummary(summarise(plan, records, problems)) };
  });
}

export async function run(ctx: CommandContext, runs: string[], options: ViewOptions): Promise<number> {
  const port = options.port === undefined ? 0 : integerOption("--port", options.port, { min: 0, max: 65535 });
  const first = loadRuns(ctx, runs);
  for (const r of first)
    for (const w of r.source.run.warnings) ctx.stderr.write(`warning: ${r.shown}: ${w}\n`);
  if (options.out) {
    const out = path.resolve(options.out);
    const data = buildViewData(first, false);
    const { files } = exportSite(data, out);
    ctx.stderr.write(`wrote ${files} files into ${out}; open ${path.join(out, "index.html")}\n`);
    if (options.json)
      ctx.stdout.write(`${JSON.stringify({ out, files, trials: data.index.trials.length })}\n`);
    return EXIT_OK;
  }
  const site = await serveSite(() => buildViewData(loadRuns(ctx, runs), true), port);
  ctx.stderr.write(`kgate view: serving ${runs.join(", ")} on ${site.url} (Ctrl-C to stop)\n`);
  ctx.stdout.write(options.json ? `${JSON.stringify({ url: site.url })}\n` : `${site.url}\n`);
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      resolve();
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
  await site.close();
  return EXIT_OK;
}
