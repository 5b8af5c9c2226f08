// Schedules `kgate check` over tasks: each task is one unit of the project's one engine (src/trial),
// `concurrency` side by side, handed back in the order given; a task whose check throws ends as a
// failed task with its error kept (stack included), never taking the others down.
import type { ProjectPaths } from "../project.ts";
import { internalError, type TrialError } from "../record/index.ts";
import {
  type EngineUnit,
  newRunId,
  type RunPlace,
  runDirOf,
  UnitEngine,
  type UnitKind,
} from "../trial/index.ts";
import { type CheckOptions, checkTaskKeepingBugs, type TaskCheck } from "./run.ts";

export interface CheckTasksOptions extends CheckOptions {
  /** Tasks checked side by side (the run setting, parsed at the CLI edge). */
  concurrency: number;
  /** Ctrl-C: no task starts after it; running ones finish (their trials end as cancelled). */
  signal?: AbortSignal;
  /** Each task's checks, in the order the ids were given, as soon as it and those before it are done. */
  checked?(result: TaskCheck): void;
}

/** A task's check as the engine keeps it: the checks, and kgate's own errors met on the way. */
interface CheckRecord {
  check: TaskCheck;
  bugs: TrialError[];
}

interface CheckUnit extends EngineUnit {
  id: string;
}

type CheckJob = CheckUnit & RunPlace & { attempt: number };

/** An error of kgate's own while checking a task: where it was met, with its stack. */
export interface CheckBug {
  trialId: string;
  error: TrialError;
}

const checkKind: UnitKind<CheckUnit, CheckJob, CheckRecord> = {
  job: (unit, attempt, run) => ({ ...unit, ...run, attempt }),
  // checks call no model provider: their sandbox trials are bounded by the session's own engine
  providerOf: () => "local",
  errorOf: (record) => record.bugs[0] ?? null,
  outcomeOf: (record) => (record.check.ok ? "pass" : "fail"),
  crashed: (job, err) => ({
    check: {
      id: job.id,
      ok: false,
      checks: [
        {
          id: "check",
          status: "fail",
          detail: `the check itself failed: ${(err as Error).message}`,
          durationMs: 0,
        },
      ],
    },
    bugs: [internalError(err)],
  }),
};

/** Checks `ids` through the engine; the tasks checked (those the signal left unstarted are left out) and kgate's own errors. */
export async function checkTasks(
  paths: ProjectPaths,
  ids: readonly string[],
  options: CheckTasksOptions,
): Promise<{ results: TaskCheck[]; bugs: CheckBug[] }> {
  // The place the sandbox steps' trials are written; with no sandbox nothing is written there.
  const runId = options.sandbox?.runId ?? newRunId("check");
  const engine = new UnitEngine<CheckUnit, CheckJob, CheckRecord>({
    runId,
    runDir: options.sandbox?.runDir ?? runDirOf(paths, runId),
    kind: checkKind,
    concurrency: options.concurrency,
    // a check is not retried: what it found stands, and a bug would be met again
    retries: 0,
    signal: options.signal,
    runner: async (job) => {
      const { check, bugs } = await checkTaskKeepingBugs(paths, job.id, options);
      return { check, bugs: bugs.map(internalError) };
    },
  });
  const pending = ids.map((id) => engine.run({ id }));
  // awaited in order below: a rejection meanwhile is not an unhandled one
  for (const done of pending) done.catch(() => {});
  const results: TaskCheck[] = [];
  const bugs: CheckBug[] = [];
  for (const done of pending) {
    const record = await done;
    if (record === null) continue;
    results.push(record.check);
    bugs.push(...record.bugs.map((error) => ({ trialId: `check of ${record.check.id}`, error })));
    options.checked?.(record.check);
  }
  return { results, bugs };
}
