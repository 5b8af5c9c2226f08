// `kgate export harbor --for-training --push <registry> [--from <run> [--only retained]]`: Harbor
// task folders for trainers, their images built and pushed through the configured sandbox provider
// (registry credentials from Docker's own config), a line per folder with its image, the warning
// that publishing them defeats the gate; exit 1 when a task could not be exported.
import path from "node:path";
import { pc } from "../colours.ts";
import { EXIT_FAILED, EXIT_OK, UsageError } from "../errors.ts";
import { calibratedIds, checkRegistry, exportTraining, PUBLICATION_WARNING } from "../export/index.ts";
import { packageInfo } from "../package-info.ts";
import { sandboxProviderFor } from "../sandbox/index.ts";
import type { Condition } from "../task/index.ts";
import { readCalibration } from "./calibration-facts.ts";
import type { CommandContext } from "./context.ts";
import { usage } from "./export-rows.ts";
import { selectTaskIds } from "./task-ids.ts";

export interface TrainingCommandOptions {
  out: string;
  push?: string;
  from?: string;
  only?: "retained";
  force?: boolean;
  json?: boolean;
}

export async function training(
  ctx: CommandContext,
  tasks: string[],
  o: TrainingCommandOptions,
  conditions: Condition[] | undefined,
): Promise<number> {
  if (!o.push)
    throw new UsageError("--for-training needs --push <registry>: trainers pull the images by digest");
  if (o.only && !o.from) throw new UsageError("--only retained needs --from <calibration run>");
  const registry = usage(() => checkRegistry(o.push!));
  const calibration = o.from ? readCalibration(ctx.paths, o.from) : undefined;
  const named = selectTaskIds(ctx.paths, tasks);
  const ids = calibration
    ? usage(() => calibratedIds(calibration, tasks.length > 0 ? named : [], o.only === "retained"))
    : named;
  const out = path.resolve(o.out);
  const result = await exportTraining(ctx.paths, ids, {
    out,
    conditions,
    force: o.force,
    kgateVersion: packageInfo().version,
    registry,
    provider: usage(() => sandboxProviderFor(ctx.paths)),
    calibration,
    onProgress: (line) => ctx.stderr.write(`${pc.dim(line)}\n`),
  });
  const failed = result.tasks.filter((t) => !t.ok);
  if (o.json) ctx.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  else {
    for (const t of result.tasks) {
      for (const f of t.folders) ctx.stdout.write(`${t.task} ${f.condition}  ${f.dir}  ${f.images.agent}\n`);
      if (!t.ok) ctx.stdout.write(`${pc.red(t.task)}  ${t.error}\n`);
    }
  }
  ctx.stderr.write(`${pc.yellow("warning")}: ${PUBLICATION_WARNING}\n`);
  return failed.length > 0 ? EXIT_FAILED : EXIT_OK;
}
