// Phase-0 units and plans as units of the one engine: each attempt's record is what it made or its
// error of the taxonomy (a line in errors.jsonl), retried by kind; the cost ceiling's admit hook is
// asked before each starts, and a refused one is logged and has no record.
import { asTrialError } from "../agents/index.ts";
import { appendJsonLine } from "../common/index.ts";
import { FAILURE_KINDS, internalError, type Outcome, type TrialError, trialError } from "../record/index.ts";
import { type Admit, type EngineUnit, type RunPlace, UnitEngine, type UnitKind } from "../trial/index.ts";
import type { TriageAttempt, TriageWork } from "./cost.ts";
import { UnitFailure } from "./live.ts";
import type { ErrorRecord, TriageRunFiles, TriageSettings } from "./records.ts";

/** What running keyed units needs of a triage run. */
export interface KeyedRunInput {
  files: TriageRunFiles;
  settings: TriageSettings;
  log: (line: string) => void;
  now?: () => Date;
  /** Units (and plans) in flight at once (default 1). */
  concurrency: number;
  /** The model provider whose limit the calls share (default `model`). */
  provider?: string;
  /** Ctrl-C: no unit or plan starts after it; running ones end as cancelled (a resume runs them). */
  signal?: AbortSignal;
  /** May this unit or plan start? (--max-cost's reservation); a refused one has no record. */
  admit?: Admit<TriageWork, TriageAttempt>;
}

/** One attempt of a unit or plan as the engine keeps it: what it made, or why not. */
interface Attempt<T> {
  key: string;
  value: T | null;
  error: TrialError | null;
  /** Its retries were spent inside it (UnitFailure.spent): the engine does not retry it. */
  spent?: boolean;
}

interface KeyedUnit extends EngineUnit {
  key: string;
}

/** A failure as the error record of the taxonomy: UnitFailure keeps its kind; anything else is classified. */
function failureOf(err: unknown, signal: AbortSignal): TrialError {
  if (signal.aborted) return trialError("cancelled", "the triage run was interrupted");
  return err instanceof UnitFailure ? err.error : asTrialError(err);
}

/**
 * Runs `todo` through an engine whose records are attempts: `work` makes the value; a failure becomes
 * the attempt's error (a line in errors.jsonl), retried by kind.
 */
export async function runKeyed<U extends KeyedUnit, T extends { costUsd: number | null }>(
  input: KeyedRunInput,
  phase: ErrorRecord["phase"],
  todo: readonly U[],
  retries: number,
  work: (unit: U, signal: AbortSignal) => Promise<T>,
  outcome: (value: T) => Outcome,
): Promise<{ failures: ErrorRecord[]; internal: ErrorRecord[]; cancelled: boolean; refused: string[] }> {
  const now = input.now ?? (() => new Date());
  const failures = new Map<string, ErrorRecord>();
  const logged = (job: U & { attempt: number }, error: TrialError): ErrorRecord => {
    const line: ErrorRecord = {
      phase,
      key: job.key,
      message: `${error.kind}: ${error.message}`.slice(0, 2000),
      error,
      attempt: job.attempt,
      at: now().toISOString(),
    };
    appendJsonLine(input.files.errors, line);
    failures.set(job.key, line);
    return line;
  };
  type Job = U & RunPlace & { attempt: number };
  const kind: UnitKind<U, Job, Attempt<T>> = {
    job: (unit, attempt, run) => ({ ...unit, ...run, attempt }),
    providerOf: () => input.provider ?? "model",
    errorOf: (a) => a.error,
    spent: (a) => a.spent === true,
    outcomeOf: (a) => (a.value !== null ? outcome(a.value) : "infra"),
    crashed: (job, err) => {
      const error = internalError(err);
      logged(job, error);
      return { key: job.key, value: null, error };
    },
  };
  const refused: string[] = [];
  const engine = new UnitEngine<U, Job, Attempt<T>>({
    admit: (job) => {
      const a = input.admit?.(job) ?? { ok: true };
      return a.ok ? { ok: true, settle: (r: Attempt<T> | null) => a.settle?.(r) } : a;
    },
    events: {
      refused: (job, reason) => {
        refused.push(job.key);
        input.log(`${phase === "phase0" ? "phase 0" : "plan"} ${job.key}: not started: ${reason}`);
      },
    },
    runId: input.settings.runId,
    runDir: input.files.dir,
    kind,
    concurrency: input.concurrency,
    retries,
    signal: input.signal,
    runner: async (job, signal) => {
      try {
        const value = await work(job, signal);
        failures.delete(job.key);
        return { key: job.key, value, error: null };
      } catch (err) {
        const error = failureOf(err, signal);
        const spent = err instanceof UnitFailure && err.spent;
        const retried = FAILURE_KINDS[error.kind].retried && !signal.aborted && !spent;
        input.log(
          `${phase === "phase0" ? "phase 0" : "plan"} ${job.key}: error (${error.kind}): ${error.message}${retried ? "" : " (left out; --resume retries it)"}`,
        );
        logged(job, error);
        return { key: job.key, value: null, error, spent };
      }
    },
  });
  await engine.runAll(todo);
  const internal = engine.internal.flatMap((a) => failures.get(a.key) ?? []);
  return { failures: [...failures.values()], internal, cancelled: engine.cancelled, refused };
}
