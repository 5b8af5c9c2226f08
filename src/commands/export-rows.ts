// `kgate export rows [task...] --out <dir>`: single-turn rows for trainers (verl's Parquet or JSONL)
// with the Python reward module, the manifest and the split; a line per task, the warning that
// publishing them defeats the gate, exit 1 when a task could not be exported. With no task named, the
// tasks a model grades (judge criteria: no offline reward) are left out, said on stderr.
import path from "node:path";
import { pc } from "../colours.ts";
import { EXIT_FAILED, EXIT_OK, UsageError, usageOrBug } from "../errors.ts";
import {
  calibratedIds,
  exportRows,
  judgeGradedIds,
  PUBLICATION_WARNING,
  parseSplit,
} from "../export/index.ts";
import { loadPayoffSchedule } from "../monitor/index.ts";
import { packageInfo } from "../package-info.ts";
import { Condition } from "../task/index.ts";
import { readCalibration } from "./calibration-facts.ts";
import type { CommandContext } from "./context.ts";
import { selectTaskIds } from "./task-ids.ts";

export interface RowsCommandOptions {
  out: string;
  format: "verl" | "jsonl";
  from?: string;
  only?: "retained";
  condition?: string[];
  reward: "binary" | "ignorance-aware";
  payoff?: string;
  split?: string;
  seed: string;
  force?: boolean;
  json?: boolean;
}

/**
 * Runs `what`; its error becomes a usage error (exit 2): a bad option value, not a failed export.
 * kgate's own bug (a TypeError ...) stays what it is, with its stack.
 */
export function usage<T>(what: () => T): T {
  try {
    return what();
  } catch (err) {
    throw usageOrBug(err);
  }
}

function conditions(values: string[] | undefined): Condition[] | undefined {
  return values?.map((value) => {
    const parsed = Condition.safeParse(value);
    if (!parsed.success) throw new UsageError(`--condition ${value}: expected +A, -A or variant:<name>`);
    return parsed.data;
  });
}

export async function rows(ctx: CommandContext, tasks: string[], o: RowsCommandOptions): Promise<number> {
  if (o.only && !o.from) throw new UsageError("--only retained needs --from <calibration run>");
  if (o.payoff && o.reward !== "ignorance-aware")
    throw new UsageError("--payoff goes with --reward ignorance-aware");
  const seed = Number(o.seed);
  if (!Number.isSafeInteger(seed)) throw new UsageError(`--seed ${o.seed}: expected an integer`);
  const calibration = o.from ? readCalibration(ctx.paths, o.from) : undefined;
  const named = selectTaskIds(ctx.paths, tasks);
  // With a run and no task named, the run's tasks (which it may have filtered to the retained ones).
  const chosen = calibration
    ? usage(() => calibratedIds(calibration, tasks.length > 0 ? named : [], o.only === "retained"))
    : named;
  // a task named is refused by name when a model grades it; unnamed, it is left out, saying so
  const judged = tasks.length > 0 ? [] : await judgeGradedIds(ctx.paths, chosen);
  for (const id of judged)
    ctx.stderr.write(
      `${id}: left out: a model grades it (judge criteria), so its rows have no offline reward\n`,
    );
  const ids = chosen.filter((id) => !judged.includes(id));
  const reward =
    o.reward === "ignorance-aware"
      ? { scheme: "ignorance-aware" as const, schedule: usage(() => loadPayoffSchedule(o.payoff)) }
      : { scheme: "binary" as const };
  const out = path.resolve(o.out);
  const result = await exportRows(ctx.paths, ids, {
    format: o.format,
    out,
    conditions: conditions(o.condition),
    reward,
    split: o.split ? usage(() => parseSplit(o.split!)) : [],
    seed,
    calibration,
    force: o.force,
    kgateVersion: packageInfo().version,
    onProgress: (line) => ctx.stderr.write(`${pc.dim(line)}\n`),
  }).catch((err: unknown) => {
    throw usageOrBug(err);
  });
  const failed = result.tasks.filter((t) => !t.ok);
  if (o.json) ctx.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  else {
    for (const file of result.files) ctx.stdout.write(`${file}\n`);
    for (const t of failed) ctx.stdout.write(`${pc.red(t.task)}  ${t.error}\n`);
    ctx.stderr.write(
      `${result.rows} row(s) of ${result.tasks.length - failed.length} of ${result.tasks.length} task(s) in ${out}\n`,
    );
  }
  ctx.stderr.write(`${pc.yellow("warning")}: ${PUBLICATION_WARNING}\n`);
  return failed.length > 0 ? EXIT_FAILED : EXIT_OK;
}
