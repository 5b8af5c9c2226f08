// What an export takes from a calibration run (`--from <run>`): the plan's task digests and the
// summary of its records (decisions, passes/runs and Wilson bounds per cell), computed from the
// run's files as `kgate report` computes it. A run that cannot be read is a usage error.
import { readPlan, runDir, summariseRun } from "../calibrate/index.ts";
import { isBug, UsageError } from "../errors.ts";
import { type CalibrationFacts, calibrationFacts } from "../export/index.ts";
import type { ProjectPaths } from "../project.ts";

export function readCalibration(paths: ProjectPaths, run: string): CalibrationFacts {
  const dir = runDir(paths, run);
  try {
    return calibrationFacts(summariseRun(dir), readPlan(dir).tasks);
  } catch (err) {
    if (isBug(err)) throw err; // kgate's own bug keeps its type and stack
    throw new UsageError(`--from ${run}: ${(err as Error).message}`);
  }
}
