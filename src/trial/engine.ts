// The one trial engine: trials (a task under a condition with an agent, at an index) through one
// bounded pool with per-provider limits, retried as the failure taxonomy says, with progress events.
// `kgate run`, `kgate check` and `kgate calibrate` all run their trials through it. When every
// sandbox host stays down, it stops: the trials it did not run get no record and stay resumable.
import { EXIT_USAGE, ExitError } from "../errors.ts";
import {
  type Condition,
  internalError,
  isRetryable,
  type Outcome,
  outcomeOf,
  TRIAL_RECORD_VERSION,
  type TrialRecord,
  UNVERIFIED,
  ZERO_USAGE,
} from "../model/index.ts";
import { AllHostsDownError } from "../sandbox/index.ts";
import type { LoadedTask } from "../task/index.ts";
import { trialId } from "./ids.ts";
import { PoolAbortedError, TrialPool } from "./pool.ts";
import { appendTrialRecord } from "./records.ts";

/** Who ran a trial, as records and limits need it. */
export interface EngineAgentInfo {
  name: string;
  digest: string;
  harness: string;
  model: string | null;
  /** Trials of one model provider share its concurrency limit (`anthropic`, `openai`, `local`). */
  provider: string;
  /** The exact harness that runs (provenance). */
  revision?: string | null;
}

/** One trial the engine is asked for. */
export interface TrialSlot {
  task: LoadedTask;
  condition: Condition;
  agent: EngineAgentInfo;
  index: number;
  /** The highest attempt number already recorded for this slot (0 for a new slot). */
  previousAttempt?: number;
}

/** One attempt of a slot, as a runner receives it (a caller's slot type may carry more, e.g. its cell). */
export type TrialJob<S extends TrialSlot = TrialSlot> = S & {
  runId: string;
  runDir: string;
  trialId: string;
  attempt: number;
};

/** Runs one attempt and returns its record (written to the run's trials.jsonl). Should not throw. */
export type TrialRunner<S extends TrialSlot = TrialSlot> = (
  job: TrialJob<S>,
  signal: AbortSignal,
) => Promise<TrialRecord>;

export interface EngineEvents<S extends TrialSlot = TrialSlot> {
  /** The pool started the attempt (it may have waited for a slot). */
  started?(job: TrialJob<S>): void;
  /** An attempt ended with a record; `retrying`: another attempt follows. */
  finished?(job: TrialJob<S>, record: TrialRecord, outcome: Outcome, retrying: boolean): void;
}

export interface EngineOptions<S extends TrialSlot = TrialSlot> {
  runId: string;
  runDir: string;
  runner: TrialRunner<S>;
  /** Attempts in flight at once, over all providers. */
  concurrency: number;
  providerLimits?: Readonly<Record<string, number>>;
  /** Extra attempts of a slot whose attempt ended in a retried failure kind (default 1). */
  retries?: number;
  /** Stops new attempts; running ones see it through their signal and end as cancelled. */
  signal?: AbortSignal;
  events?: EngineEvents<S>;
}

/** Every sandbox host stayed down past the pool's grace period: the run stopped (exit 2). */
export class HostsDownStop extends ExitError {
  constructor(cause: AllHostsDownError) {
    super(
      EXIT_USAGE,
      `${cause.message}: the run stopped; the trials it did not run have no record (a resume runs them once a host answers)`,
    );
    this.name = "HostsDownStop";
  }
}

/** A record for an attempt whose runner threw: kgate's own bug, kept as an `internal` error. */
function crashRecord(job: TrialJob<TrialSlot>, err: unknown): TrialRecord {
  const now = new Date().toISOString();
  const t = job.task;
  const record: TrialRecord = {
    recordVersion: TRIAL_RECORD_VERSION,
    runId: job.runId,
    trialId: job.trialId,
    index: job.index,
    attempt: job.attempt,
    task: {
      id: t.id,
      digests: {
        task: t.digests.task,
        instruction: t.digests.instruction,
        environment: t.digests.environment,
      },
    },
    condition: job.condition,
    form: "sandbox",
    artefactDigest: null,
    fileSetDigest: "",
    agent: {
      name: job.agent.name,
      digest: job.agent.digest,
      harness: job.agent.harness,
      model: job.agent.model,
    },
    provenance: null,
    startedAt: now,
    finishedAt: now,
    phases: {},
    usage: ZERO_USAGE,
    stopReason: "error",
    outputs: [],
    verdict: UNVERIFIED,
    error: internalError(err),
    trajectory: null,
    artefactListed: null,
    artefactOpened: null,
    canaryLeak: null,
    monitor: null,
  };
  try {
    appendTrialRecord(job.runDir, record);
  } catch {
    // the record still reaches the caller, which reports internal errors
  }
  return record;
}

export class TrialEngine<S extends TrialSlot = TrialSlot> {
  private readonly pool: TrialPool<TrialJob<S>, TrialRecord>;
  private readonly signal: AbortSignal;
  private readonly halt = new AbortController();
  /** Set when every host stayed down: no attempt starts after it, and run() throws it. */
  halted: HostsDownStop | null = null;
  /** Records whose error is `internal` (kgate's own bugs): the command reports them and fails. */
  readonly internal: TrialRecord[] = [];
  /** Every record written in this session, retried attempts included. */
  readonly written: TrialRecord[] = [];

  constructor(private readonly o: EngineOptions<S>) {
    this.signal = AbortSignal.any([o.signal ?? new AbortController().signal, this.halt.signal]);
    this.pool = new TrialPool<TrialJob<S>, TrialRecord>(
      { concurrency: o.concurrency, providerLimits: o.providerLimits, signal: this.signal },
      (job) => job.agent.provider,
      async (job, signal) => {
        o.events?.started?.(job);
        try {
          return await o.runner(job, signal);
        } catch (err) {
          // no host to place the attempt on: it never ran, so it gets no record
          if (err instanceof AllHostsDownError) throw this.stop(err);
          return crashRecord(job, err);
        }
      },
    );
  }

  get cancelled(): boolean {
    return this.signal.aborted;
  }

  /** Stops placing: queued attempts never start, running ones end as cancelled. */
  private stop(err: AllHostsDownError): HostsDownStop {
    this.halted ??= new HostsDownStop(err);
    this.halt.abort(this.halted);
    return this.halted;
  }

  /**
   * Runs a slot: attempts until one ends in a kind that is not retried, or the retries are spent.
   * Resolves with the last attempt's record, or null when the run was cancelled before it started;
   * rejects with HostsDownStop once every host stayed down.
   */
  async run(slot: S): Promise<TrialRecord | null> {
    const retries = this.o.retries ?? 1;
    const first = (slot.previousAttempt ?? 0) + 1;
    for (let attempt = first; ; attempt++) {
      const job: TrialJob<S> = {
        ...slot,
        runId: this.o.runId,
        runDir: this.o.runDir,
        trialId: trialId(slot.task.id, slot.condition, slot.agent.name, slot.index, attempt),
        attempt,
      };
      let record: TrialRecord;
      try {
        record = await this.pool.submit(job);
      } catch (err) {
        if (this.halted) throw this.halted;
        if (err instanceof PoolAbortedError) return null;
        throw err;
      }
      this.written.push(record);
      if (record.error?.kind === "internal") this.internal.push(record);
      const retrying = isRetryable(record) && attempt - first < retries && !this.signal.aborted;
      this.o.events?.finished?.(job, record, outcomeOf(record), retrying);
      if (!retrying) return record;
    }
  }

  /** Runs slots side by side (bounded by the pool); records in slot order, cancelled ones left out. */
  async runAll(slots: readonly S[]): Promise<TrialRecord[]> {
    const settled = await Promise.allSettled(slots.map((s) => this.run(s)));
    if (this.halted) throw this.halted;
    return settled
      .map((r) => {
        if (r.status === "rejected") throw r.reason;
        return r.value;
      })
      .filter((r): r is TrialRecord => r !== null);
  }
}
