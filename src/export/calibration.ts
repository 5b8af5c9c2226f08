// What a calibration run says of each task an export takes from it (`--from <run>`): the decision,
// its borderline flags and every cell's passes, runs and Wilson 95% bounds, with the task digest
// the run calibrated. An export refuses a task whose files changed since: its figures would not be
// the exported task's.
import type { RunSummary } from "../report/index.ts";
import type { LoadedTask } from "../task/index.ts";

export interface CellFacts {
  cell: string;
  agent: string;
  condition: string;
  passes: number;
  runs: number;
  /** Wilson 95% interval of the pass rate. */
  lo: number;
  hi: number;
}

export interface TaskCalibration {
  decision: "retain" | "revise" | "discard" | "incomplete";
  borderline: string[];
  /** The task digest the run's plan recorded. */
  taskDigest: string;
  cells: CellFacts[];
}

export interface CalibrationFacts {
  runId: string;
  tasks: ReadonlyMap<string, TaskCalibration>;
}

/** The facts of a run from its summary and the task digests of its plan. */
export function calibrationFacts(
  summary: RunSummary,
  planTasks: ReadonlyArray<{ id: string; digests: { task: string } }>,
): CalibrationFacts {
  const digests = new Map(planTasks.map((t) => [t.id, t.digests.task]));
  const tasks = new Map<string, TaskCalibration>();
  for (const task of summary.tasks) {
    const cells = summary.cells
      .filter((c) => c.task === task.id)
      .map((c) => ({
        cell: c.label,
        agent: c.agent,
        condition: c.condition,
        passes: c.counts.pass,
        runs: c.counts.runs,
        lo: c.interval.lo,
        hi: c.interval.hi,
      }));
    tasks.set(task.id, {
      decision: task.decision,
      borderline: task.borderline,
      taskDigest: digests.get(task.id) ?? "",
      cells,
    });
  }
  return { runId: summary.runId, tasks };
}

/** The task ids an export takes from a run: those named (all of the run's by default), retained only if asked. */
export function calibratedIds(
  facts: CalibrationFacts,
  named: readonly string[],
  onlyRetained: boolean,
): string[] {
  const ids = named.length > 0 ? [...named] : [...facts.tasks.keys()];
  const missing = ids.filter((id) => !facts.tasks.has(id));
  if (missing.length > 0) throw new Error(`run ${facts.runId} did not calibrate ${missing.join(", ")}`);
  return onlyRetained ? ids.filter((id) => facts.tasks.get(id)!.decision === "retain") : ids;
}

/** Throws when the task changed since the run calibrated it. */
export function checkCalibrated(facts: CalibrationFacts, task: LoadedTask): TaskCalibration {
  const calibration = facts.tasks.get(task.id);
  if (!calibration) throw new Error(`run ${facts.runId} did not calibrate task "${task.id}"`);
  if (calibration.taskDigest !== task.digests.task) {
    throw new Error(
      `task "${task.id}" changed since run ${facts.runId} calibrated it (digest ${calibration.taskDigest.slice(0, 12)}…, now ${task.digests.task.slice(0, 12)}…): its figures would not describe the export; calibrate it again`,
    );
  }
  return calibration;
}
