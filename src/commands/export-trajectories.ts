// `kgate export trajectories --format atif <run>`: every trial record of the run as a trajectory in
// Harbor's ATIF (src/export/atif*.ts), one `<trial>.json` per record in --out (default <run>/atif);
// a line per file, problems on stderr (exit 1 when a record or trajectory could not be read).
import { existsSync } from "node:fs";
import path from "node:path";
import { runDir } from "../calibrate/index.ts";
import { pc } from "../colours.ts";
import { EXIT_FAILED, EXIT_OK, UsageError } from "../errors.ts";
import { ATIF_VERSION, exportRunTrajectories } from "../export/index.ts";
import { packageInfo } from "../package-info.ts";
import { relativeToProject } from "../project.ts";
import type { CommandContext } from "./context.ts";

export interface ExportTrajectoriesOptions {
  format: string;
  out?: string;
  json?: boolean;
}

export async function run(
  ctx: CommandContext,
  runName: string,
  options: ExportTrajectoriesOptions,
): Promise<number> {
  if (options.format !== "atif") throw new UsageError(`--format: expected atif, got "${options.format}"`);
  const dir = runDir(ctx.paths, runName);
  if (!existsSync(dir.trials))
    throw new UsageError(`no trials in ${dir.shown} (no trials.jsonl): is it a run?`);
  const out = options.out ? path.resolve(options.out) : path.join(dir.dir, "atif");
  const result = exportRunTrajectories(ctx.paths, dir.dir, out, packageInfo().version);
  for (const problem of result.problems) ctx.stderr.write(`${pc.yellow("problem")}: ${problem}\n`);
  if (options.json) {
    ctx.stdout.write(`${JSON.stringify({ format: ATIF_VERSION, out, ...result }, null, 2)}\n`);
  } else {
    const shown = (f: string) => {
      const rel = relativeToProject(ctx.paths, f);
      return rel.startsWith("..") ? f : rel;
    };
    for (const w of result.written) ctx.stdout.write(`${w.trialId}  ${shown(w.file)}  ${w.steps} step(s)\n`);
    ctx.stderr.write(
      `${result.written.length} trajectory file(s) in ${ATIF_VERSION} written to ${shown(out)}\n`,
    );
  }
  return result.problems.length > 0 ? EXIT_FAILED : EXIT_OK;
}
