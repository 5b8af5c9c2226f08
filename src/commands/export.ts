// `kgate export harbor|benchflow [task...] --out <dir>`: one task folder per task and condition in
// the harness's layout; a line per folder, exit 1 when a task could not be exported.
import path from "node:path";
import { pc } from "../colours.ts";
import { EXIT_FAILED, EXIT_OK, UsageError } from "../errors.ts";
import { type ExportLayout, exportTasks, PUBLICATION_WARNING } from "../export/index.ts";
import { packageInfo } from "../package-info.ts";
import { Condition } from "../task/index.ts";
import type { CommandContext } from "./context.ts";
import { training } from "./export-training.ts";
import { selectTaskIds } from "./task-ids.ts";

export interface ExportCommandOptions {
  out: string;
  condition?: string[];
  force?: boolean;
  json?: boolean;
  /** benchflow only: Harbor's split layout (task.toml, instruction.md, solution/, tests/) plus the skill. */
  split?: boolean;
  /** harbor only: the training export (export-training.ts) and its options. */
  forTraining?: boolean;
  push?: string;
  from?: string;
  only?: "retained";
}

function parseConditions(values: string[] | undefined): Condition[] | undefined {
  if (!values) return undefined;
  return values.map((value) => {
    const parsed = Condition.safeParse(value);
    if (!parsed.success) throw new UsageError(`--condition ${value}: expected +A, -A or variant:<name>`);
    return parsed.data;
  });
}

async function runExport(
  layout: ExportLayout,
  ctx: CommandContext,
  tasks: string[],
  options: ExportCommandOptions,
): Promise<number> {
  const ids = selectTaskIds(ctx.paths, tasks);
  const { tasks: results, manifest } = await exportTasks(ctx.paths, ids, {
    layout,
    out: path.resolve(options.out),
    conditions: parseConditions(options.condition),
    force: options.force,
    kgateVersion: packageInfo().version,
    onProgress: (line) => ctx.stderr.write(`${pc.dim(line)}\n`),
  });
  const failed = results.filter((r) => !r.ok);
  if (options.json) {
    ctx.stdout.write(
      `${JSON.stringify({ layout, out: path.resolve(options.out), tasks: results, manifest }, null, 2)}\n`,
    );
  } else {
    for (const result of results) {
      for (const folder of result.folders)
        ctx.stdout.write(`${result.task} ${folder.condition}  ${folder.dir}\n`);
      if (!result.ok) ctx.stdout.write(`${pc.red(result.task)}  ${result.error}\n`);
    }
    const folders = results.reduce((n, r) => n + r.folders.length, 0);
    ctx.stderr.write(
      `${folders} folder(s) written for ${results.length - failed.length} of ${results.length} task(s)\n`,
    );
  }
  ctx.stderr.write(`${pc.yellow("warning")}: ${PUBLICATION_WARNING}\n`);
  return failed.length > 0 ? EXIT_FAILED : EXIT_OK;
}

export async function harbor(
  ctx: CommandContext,
  tasks: string[],
  options: ExportCommandOptions,
): Promise<number> {
  if (options.forTraining) return training(ctx, tasks, options, parseConditions(options.condition));
  const stray = (["push", "from", "only"] as const).find((k) => options[k] !== undefined);
  if (stray) throw new UsageError(`--${stray} goes with --for-training`);
  return runExport("harbor", ctx, tasks, options);
}

export const benchflow = (ctx: CommandContext, tasks: string[], options: ExportCommandOptions) =>
  runExport(options.split ? "benchflow-split" : "benchflow", ctx, tasks, options);
