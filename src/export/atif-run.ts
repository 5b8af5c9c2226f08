// `kgate export trajectories --format atif`: every trial record of a run directory as one ATIF
// trajectory file, `<out>/<trialId>.json`, with the instruction read back from the task when its
// bytes still match the record's digest. Bad record lines and unreadable trajectories are reported
// by file and line; they never stop the other trials.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { readTrajectory } from "../agents/index.ts";
import type { ProjectPaths } from "../project.ts";
import type { TrialRecord } from "../record/index.ts";
import { readTrialRecords } from "../trial/index.ts";
import { atifTrajectory } from "./atif.ts";

export interface AtifRunExport {
  /** One file per record, in the order of trials.jsonl. */
  written: Array<{ trialId: string; file: string; steps: number }>;
  /** What could not be read: bad record lines, missing or damaged trajectories. */
  problems: string[];
}

/** The task's instruction, if its bytes are the ones the trial ran with (sha256 as in the record). */
function instructionOf(paths: ProjectPaths, record: TrialRecord): string | null {
  const file = path.join(paths.tasks, record.task.id, "instruction.md");
  if (!existsSync(file)) return null;
  const bytes = readFileSync(file);
  const digest = createHash("sha256").update(bytes).digest("hex");
  return digest === record.task.digests.instruction ? bytes.toString("utf8") : null;
}

/** The trajectory file of a record, only inside the run directory. */
function trajectoryFile(runDir: string, record: TrialRecord): string | null {
  if (!record.trajectory) return null;
  const file = path.resolve(runDir, record.trajectory);
  const rel = path.relative(runDir, file);
  return rel.startsWith("..") || path.isAbsolute(rel) ? null : file;
}

/** A trial id as a file name: the id's own characters, anything else as `_`. */
const fileName = (trialId: string) => `${trialId.replace(/[^A-Za-z0-9._+-]/g, "_")}.json`;

export function exportRunTrajectories(
  paths: ProjectPaths,
  runDir: string,
  out: string,
  kgateVersion: string,
): AtifRunExport {
  const { records, problems } = readTrialRecords(runDir);
  const result: AtifRunExport = {
    written: [],
    problems: problems.map((p) => `${p.file}: line ${p.line}: ${p.message}`),
  };
  mkdirSync(out, { recursive: true });
  for (const record of records) {
    const file = trajectoryFile(runDir, record);
    let events: ReturnType<typeof readTrajectory> = { events: [], problems: [] };
    if (record.trajectory && !file)
      result.problems.push(`${record.trialId}: trajectory path ${record.trajectory} is outside the run`);
    else if (file && !existsSync(file))
      result.problems.push(`${record.trialId}: trajectory ${record.trajectory} is missing`);
    else if (file) events = readTrajectory(file);
    result.problems.push(...events.problems);
    const trajectory = atifTrajectory({
      record,
      events: events.events,
      instruction: instructionOf(paths, record),
      problems: events.problems,
      kgateVersion,
    });
    const target = path.join(out, fileName(record.trialId));
    writeFileSync(target, `${JSON.stringify(trajectory, null, 2)}\n`);
    result.written.push({ trialId: record.trialId, file: target, steps: trajectory.steps.length });
  }
  return result;
}
