// The one engine under every verb and protocol, generic over the unit it runs and the record each
// attempt ends in: one bounded pool with per-provider limits, attempts retried as the failure taxonomy
// says, a runner that throws kept as an `internal` record, progress events, cancellation. A unit kind
// (trials, exams, probe trials, triage units) says how to name an attempt, where its error is and
// what record a crashed runner leaves. When every sandbox host stays down, it stops: the units it did
// not run get no record and stay resumable.
import { RUN_SETTINGS } from "../common/index.ts";
import { EXIT_USAGE, ExitError } from "../errors.ts";
import { FAILURE_KINDS, type Outcome, type TrialError } from "../record/index.ts";
import { AllHostsDownError } from "../sandbox/index.ts";
import { PoolAbortedError, UnitPool } from "./pool.ts";

/** What every unit carries: the highest attempt already recorded for it (0 or absent: a new unit). */
export interface EngineUnit {
  previousAttempt?: number;
}

/** Where the attempts of a run go. */
export interface RunPlace {
  runId: string;
  runDir: string;
}

/** How the engine handles one kind of unit (J: the job a runner receives, R: the record of an attempt). */
export interface UnitKind<U extends EngineUnit, J extends U, R> {
  /** The attempt as a job: the unit, its attempt number and ids. */
  job(unit: U, attempt: number, run: RunPlace): J;
  /** Attempts of one model provider share its concurrency limit. */
  providerOf(unit: U): string;
  /** The attempt's error of the closed taxonomy, or null. */
  errorOf(record: R): TrialError | null;
  /** How the attempt counts: pass or fail, or left out (infra, unverified). */
  outcomeOf(record: R): Outcome;
  /** The attempt already spent its retries inside (a unit over an engine's trial): not retried again. */
  spent?(record: R): boolean;
  /** The record of an attempt whose runner threw (kgate's own bug, kind `internal`), written where the kind keeps records. */
  crashed(job: J, err: unknown): R;
}

/** Runs one attempt and returns its record (written where its kind keeps records). Should not throw. */
export type UnitRunner<J, R> = (job: J, signal: AbortSignal) => Promise<R>;

/**
 * May an attempt start now? Asked as the pool is about to start it (a queued attempt is asked when
 * its slot frees, not when it was queued). `settle` is called with the attempt's record once it ends
 * (null when it never ran). A refusal leaves the unit without a record: run() resolves with null.
 */
export type Admission<R> = { ok: true; settle?(record: R | null): void } | { ok: false; reason: string };
export type Admit<J, R> = (job: J) => Admission<R>;

/** The attempt was refused by the admit hook: it never ran. */
class Refused extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

export interface UnitEvents<J, R> {
  /** The admit hook refused the attempt: it did not run and has no record. */
  refused?(job: J, reason: string): void;
  /** The pool started the attempt (it may have waited for a slot). */
  started?(job: J): void;
  /** An attempt ended with a record; `retrying`: another attempt follows. */
  finished?(job: J, record: R, outcome: Outcome, retrying: boolean): void;
}

export interface UnitEngineOptions<U extends EngineUnit, J extends U, R> extends RunPlace {
  kind: UnitKind<U, J, R>;
  runner: UnitRunner<J, R>;
  /** Attempts in flight at once, over all providers. */
  concurrency: number;
  providerLimits?: Readonly<Record<string, number>>;
  /** Extra attempts of a unit whose attempt ended in a retried failure kind (default 1). */
  retries?: number;
  /** Stops new attempts; running ones see it through their signal and end as cancelled. */
  signal?: AbortSignal;
  events?: UnitEvents<J, R>;
  /** Asked before each attempt starts (e.g. a cost ceiling's reservation); absent: every attempt may. */
  admit?: Admit<J, R>;
}

/** Every sandbox host stayed down past the pool's grace period: the run stopped (exit 2). */
export class HostsDownStop extends ExitError {
  constructor(cause: AllHostsDownError) {
    super(
      EXIT_USAGE,
      `${cause.message}: the run stopped; the units it did not run have no record (a resume runs them once a host answers)`,
    );
    this.name = "HostsDownStop";
  }
}

/** Should the engine start another attempt after this error in the same session? */
function retriedKind(error: TrialError | null): boolean {
  return error !== null && FAILURE_KINDS[error.kind].retried;
}

export class UnitEngine<U extends EngineUnit, J extends U, R> {
  private readonly pool: UnitPool<J, R>;
  private readonly signal: AbortSignal;
  private readonly halt = new AbortController();
  /** Set when every host stayed down: no attempt starts after it, and run() throws it. */
  halted: HostsDownStop | null = null;
  /** Records whose error is `internal` (kgate's own bugs): the command reports them and fails. */
  readonly internal: R[] = [];
  /** Every record made in this session, retried attempts included. */
  readonly written: R[] = [];

  constructor(private readonly o: UnitEngineOptions<U, J, R>) {
    this.signal = AbortSignal.any([o.signal ?? new AbortController().signal, this.halt.signal]);
    this.pool = new UnitPool<J, R>(
      { concurrency: o.concurrency, providerLimits: o.providerLimits, signal: this.signal },
      (job) => o.kind.providerOf(job),
      async (job, signal) => {
        const admission = o.admit?.(job) ?? { ok: true };
        if (!admission.ok) throw new Refused(admission.reason);
        let record: R | null = null;
        o.events?.started?.(job);
        try {
          record = await o.runner(job, signal);
          return record;
        } catch (err) {
          // no host to place the attempt on: it never ran, so it gets no record
          if (err instanceof AllHostsDownError) throw this.stop(err);
          record = o.kind.crashed(job, err);
          return record;
        } finally {
          admission.settle?.(record);
        }
      },
    );
  }

  get cancelled(): boolean {
    return this.signal.aborted;
  }

  /** The engine's signal: the caller's, or the stop once every host stayed down. */
  get abortSignal(): AbortSignal {
    return this.signal;
  }

  /** Stops placing: queued attempts never start, running ones end as cancelled. */
  private stop(err: AllHostsDownError): HostsDownStop {
    this.halted ??= new HostsDownStop(err);
    this.halt.abort(this.halted);
    return this.halted;
  }

  /**
   * Runs a unit: attempts until one ends in a kind that is not retried, or the retries are spent.
   * Resolves with the last attempt's record, or null when the run was cancelled before it started;
   * rejects with HostsDownStop once every host stayed down.
   */
  async run(unit: U): Promise<R | null> {
    const retries = this.o.retries ?? RUN_SETTINGS.retries.default;
    const first = (unit.previousAttempt ?? 0) + 1;
    const place = { runId: this.o.runId, runDir: this.o.runDir };
    for (let attempt = first; ; attempt++) {
      const job = this.o.kind.job(unit, attempt, place);
      let record: R;
      try {
        record = await this.pool.submit(job);
      } catch (err) {
        if (this.halted) throw this.halted;
        if (err instanceof PoolAbortedError) return null;
        if (err instanceof Refused) {
          this.o.events?.refused?.(job, err.reason);
          return null;
        }
        throw err;
      }
      this.written.push(record);
      const error = this.o.kind.errorOf(record);
      if (error?.kind === "internal") this.internal.push(record);
      const retrying =
        retriedKind(error) &&
        !this.o.kind.spent?.(record) &&
        attempt - first < retries &&
        !this.signal.aborted;
      this.o.events?.finished?.(job, record, this.o.kind.outcomeOf(record), retrying);
      if (!retrying) return record;
    }
  }

  /** Runs units side by side (bounded by the pool); records in unit order, cancelled ones left out. */
  async runAll(units: readonly U[]): Promise<R[]> {
    const settled = await Promise.allSettled(units.map((u) => this.run(u)));
    if (this.halted) throw this.halted;
    return settled
      .map((r) => {
        if (r.status === "rejected") throw r.reason;
        return r.value;
      })
      .filter((r): r is Awaited<R> => r !== null);
  }
}
