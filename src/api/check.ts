// The library's pre-flight (`kgate check` as a function): every check a task must pass before a model
// call is paid for, the oracle and noop trials in the project's sandbox included, tasks side by side,
// each task's checks as an event, an AbortSignal that stops them, and the counts by status.
import {
  type CheckSummary,
  checkTasks,
  type SandboxSession,
  sandboxSession,
  summarise,
  type TaskCheck,
} from "../check/index.ts";
import { runSettingDefault } from "../common/index.ts";
import { UsageError } from "../errors.ts";
import type { TrialRecord } from "../record/index.ts";
import { listTaskIds, noTaskMessage } from "../task/index.ts";
import { sweepAfterAbort } from "./abort.ts";
import type { Project } from "./project.ts";

export type { CheckResult, CheckSummary, TaskCheck } from "../check/index.ts";

export interface CheckOptions {
  /** Task ids (absent or empty: every task of the project). */
  tasks?: readonly string[];
  /** false: no oracle and noop trials in the sandbox (those checks are `unavailable`). Default true. */
  sandbox?: boolean;
  /** Tasks checked side by side (default: the run setting's default for check). */
  concurrency?: number;
  /** Repeats of each judgement in the judge calibration (default 3). */
  judgeRepeats?: number;
  /** false: the judge calibration asks its judges without pinging their endpoints first (default true). */
  ping?: boolean;
  /** The id of the sandbox trials' run (default: a new `check-...` id). */
  runId?: string;
  /** Abort: no task starts after it; running ones finish, their sandbox trials end as cancelled. */
  signal?: AbortSignal;
  /** Each task's checks, in the order the tasks were given, as soon as it and those before it are done. */
  onTask?: (result: TaskCheck) => void;
  /** The sandbox's set-up and the steps' messages. */
  onProgress?: (line: string) => void;
}

export interface CheckReport {
  /** The run the sandbox trials were written to (runs/<id>/); null when no sandbox was used. */
  runId: string | null;
  /** Each task checked, in the order given (tasks the signal left unstarted are left out). */
  tasks: TaskCheck[];
  summary: CheckSummary;
  /** kgate's own errors met while checking, by the trial or task they were met in (a bug to report; `error.stack`). */
  internalErrors: Array<Pick<TrialRecord, "trialId" | "error">>;
  /** The signal stopped the check before every task was checked. */
  interrupted: boolean;
}

/** The task ids to check: the given ones, each of which must exist, or every task. */
function idsOf(project: Project, tasks: readonly string[] | undefined): string[] {
  const known = listTaskIds(project.paths);
  if (!tasks || tasks.length === 0) return known;
  const unknown = tasks.filter((t) => !known.includes(t));
  if (unknown.length > 0) throw new UsageError(noTaskMessage(project.paths, unknown));
  return [...tasks];
}

/** Checks the project's tasks (static steps, the audit, the verifier, the oracle and noop trials). */
export async function check(project: Project, options: CheckOptions = {}): Promise<CheckReport> {
  const { paths } = project;
  const ids = idsOf(project, options.tasks);
  const concurrency = options.concurrency ?? runSettingDefault("concurrency", "check");
  const progress = options.onProgress ?? (() => {});
  let session: SandboxSession | undefined;
  if (options.sandbox !== false && ids.length > 0) {
    // The session's runner sweeps what dead kgate processes left on the configured provider when it opens.
    session = sandboxSession(paths, {
      signal: options.signal,
      progress,
      concurrency,
      ...(options.runId ? { runId: options.runId } : {}),
    });
  }
  let checked: Awaited<ReturnType<typeof checkTasks>>;
  try {
    checked = await checkTasks(paths, ids, {
      concurrency,
      signal: options.signal,
      progress,
      sandbox: session,
      ...(options.judgeRepeats === undefined ? {} : { judgeRepeats: options.judgeRepeats }),
      ...(options.ping === false ? { ping: false } : {}),
      checked: (result) => options.onTask?.(result),
    });
  } finally {
    await session?.close();
    if (session) await sweepAfterAbort(paths, session.runId, options.signal, progress);
  }
  return {
    runId: session?.runId ?? null,
    tasks: checked.results,
    summary: summarise(checked.results),
    internalErrors: [...checked.bugs, ...(session?.internal() ?? [])],
    interrupted: options.signal?.aborted === true,
  };
}
