// `kgate show <run>[/<trial>]`: one trial's record and trajectory, readably; or the trials of a run.
import { existsSync } from "node:fs";
import path from "node:path";
import { readTrajectory } from "../agents/index.ts";
import { pc } from "../colours.ts";
import { EXIT_OK, UsageError } from "../errors.ts";
import { relativeToProject } from "../project.ts";
import type { TrajectoryEvent, TrialRecord } from "../record/index.ts";
import { readTrialRecords, runDirOf } from "../trial/index.ts";
import type { CommandContext } from "./context.ts";
import { formatEvent, formatRecordHeader, formatRunTable } from "./show-format.ts";

export interface ShowOptions {
  json?: boolean;
  /** Print tool outputs and model texts in full instead of their first lines. */
  full?: boolean;
}

function splitRef(ref: string): { runId: string; trialId: string | null } {
  const clean = ref.replace(/^runs\//, "").replace(/\/+$/, "");
  const [runId, ...rest] = clean.split("/");
  if (!runId) throw new UsageError(`"${ref}" names no run (expected <run> or <run>/<trial>)`);
  return { runId, trialId: rest.length ? rest.join("/") : null };
}

export async function run(ctx: CommandContext, ref: string, options: ShowOptions): Promise<number> {
  const { runId, trialId } = splitRef(ref);
  const runDir = runDirOf(ctx.paths, runId);
  if (!existsSync(runDir))
    throw new UsageError(`no run "${runId}" in ${relativeToProject(ctx.paths, ctx.paths.runs)}/`);
  const { records, problems } = readTrialRecords(runDir);
  for (const p of problems) {
    ctx.stderr.write(
      `${pc.yellow("warning")} ${relativeToProject(ctx.paths, p.file)}: line ${p.line}: ${p.message}\n`,
    );
  }
  if (trialId === null) {
    if (options.json) ctx.stdout.write(`${JSON.stringify({ runId, trials: records }, null, 2)}\n`);
    else ctx.stdout.write(formatRunTable(runId, records));
    return EXIT_OK;
  }
  const record = [...records].reverse().find((r: TrialRecord) => r.trialId === trialId);
  if (!record) {
    const known = records.map((r) => r.trialId);
    const hint = known.length
      ? ` (trials: ${known.slice(0, 10).join(", ")}${known.length > 10 ? ", ..." : ""})`
      : "";
    throw new UsageError(`run "${runId}" has no trial "${trialId}"${hint}`);
  }
  let events: TrajectoryEvent[] = [];
  let trajectoryNote: string | null = null;
  if (record.trajectory) {
    const file = path.join(runDir, record.trajectory);
    if (existsSync(file)) {
      const read = readTrajectory(file);
      events = read.events;
      for (const p of read.problems) ctx.stderr.write(`${pc.yellow("warning")} ${p}\n`);
    } else trajectoryNote = `trajectory file ${relativeToProject(ctx.paths, file)} is missing`;
  }
  if (options.json) {
    ctx.stdout.write(`${JSON.stringify({ record, events }, null, 2)}\n`);
    return EXIT_OK;
  }
  ctx.stdout.write(formatRecordHeader(record, events.length));
  if (trajectoryNote) ctx.stdout.write(`${pc.yellow(trajectoryNote)}\n`);
  const start = events[0] ? Date.parse(events[0].at) : 0;
  for (const event of events) ctx.stdout.write(formatEvent(event, start, options.full === true));
  return EXIT_OK;
}
