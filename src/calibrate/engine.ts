// Runs the trials a plan still wants through one bounded pool: existing records are respected,
// infrastructure errors are retried with a new attempt, sequential screening asks for more trials
// as results arrive, and an abort stops new starts while running trials wind down.
import type { LoadedTask } from "../task/index.ts";
import { isRetryable, type TrialRecord, trialId } from "../trial/index.ts";
import type { PlannedCell } from "./cells.ts";
import type { AgentInfo, Plan } from "./plan.ts";
import { wantedTrials } from "./policy.ts";
import { PoolAbortedError, TrialPool } from "./scheduler.ts";
import { addRecord, type Outcome, outcomeOf, type Tally, tallyRecords } from "./tally.ts";

/** One trial to run: the runner appends its record to the run's trials.jsonl and returns it. */
export interface TrialJob {
  runId: string;
  runDir: string;
  trialId: string;
  task: LoadedTask;
  cell: PlannedCell;
  agent: AgentInfo;
  index: number;
  attempt: number;
}

/** Runs one trial end to end. It should never throw: failures belong in the record. */
export type TrialRunner = (job: TrialJob, signal: AbortSignal) => Promise<TrialRecord>;

/** What the engine tells a progress display. */
export interface EngineEvents {
  /** The pool started the trial (it may have waited in the queue for a slot). */
  started?(job: TrialJob): void;
  finished?(job: TrialJob, record: TrialRecord, outcome: Outcome, retrying: boolean): void;
  /** The runner threw (a bug or an aborted trial): no record was written. */
  crashed?(job: TrialJob, error: Error, retrying: boolean): void;
  /** The number of trials wanted changed (sequential screening adds some). */
  planned?(remaining: number): void;
}

export interface EngineOptions {
  plan: Plan;
  runDir: string;
  tasks: ReadonlyMap<string, LoadedTask>;
  runner: TrialRunner;
  /** Records already in the run directory (resume). */
  records: readonly TrialRecord[];
  concurrency: number;
  providerLimits?: Readonly<Record<string, number>>;
  signal?: AbortSignal;
  events?: EngineEvents;
}

export interface EngineResult {
  tally: Tally;
  /** Records written in this session. */
  written: TrialRecord[];
  interrupted: boolean;
  /** Trials given up after their attempts in this session ended in infrastructure errors or crashes. */
  exhausted: number;
}

export async function runCalibration(o: EngineOptions): Promise<EngineResult> {
  const { plan } = o;
  const tally = tallyRecords(plan, o.records);
  const agents = new Map(plan.agents.map((a) => [a.name, a]));
  const signal = o.signal ?? new AbortController().signal;
  const pool = new TrialPool<TrialJob, TrialRecord>(
    { concurrency: o.concurrency, providerLimits: o.providerLimits, signal },
    (job) => job.agent.provider,
    (job, s) => {
      o.events?.started?.(job);
      return o.runner(job, s);
    },
  );
  const budget = 1 + plan.infraRetries;
  const sessionAttempts = new Map<string, number>();
  const inFlight = new Map<string, Promise<void>>();
  const written: TrialRecord[] = [];
  let exhausted = 0;

  const slotKey = (cell: PlannedCell, index: number) => `${cell.key}#${index}`;
  const cellBusy = (cell: PlannedCell) => [...inFlight.keys()].some((k) => k.startsWith(`${cell.key}#`));

  const launch = (cell: PlannedCell, index: number) => {
    const key = slotKey(cell, index);
    const used = sessionAttempts.get(key) ?? 0;
    sessionAttempts.set(key, used + 1);
    const previous = tally.cells.get(cell.key)?.slots.get(index)?.attempt ?? 0;
    const attempt = Math.max(previous + 1, used + 1);
    const task = o.tasks.get(cell.task);
    const agent = agents.get(cell.agent);
    if (!task || !agent)
      throw new Error(`plan names task "${cell.task}" or agent "${cell.agent}" it does not define`);
    const job: TrialJob = {
      runId: plan.runId,
      runDir: o.runDir,
      trialId: trialId(cell.task, cell.condition, cell.agent, index, attempt),
      task,
      cell,
      agent,
      index,
      attempt,
    };
    const settle = pool.submit(job).then(
      (record) => {
        written.push(record);
        addRecord(plan, tally, record);
        const outcome = outcomeOf(record);
        const retrying = isRetryable(record) && used + 1 < budget && !signal.aborted;
        if (outcome === "infra" && !retrying) {
          exhausted += 1;
          // Not worth another attempt in this session (e.g. a missing key); a resume tries again.
          sessionAttempts.set(key, budget);
        }
        o.events?.finished?.(job, record, outcome, retrying);
      },
      (err: Error) => {
        if (err instanceof PoolAbortedError) return;
        const retrying = used + 1 < budget && !signal.aborted;
        if (!retrying) exhausted += 1;
        o.events?.crashed?.(job, err, retrying);
      },
    );
    inFlight.set(
      key,
      settle.finally(() => inFlight.delete(key)),
    );
  };

  const order = plan.tasks.map((t) => t.id);
  let lastRemaining = -1;
  for (;;) {
    if (!signal.aborted) {
      const wanted = order
        .flatMap((id) => wantedTrials(plan, tally, id))
        .filter(({ cell, index }) => !inFlight.has(slotKey(cell, index)))
        .filter(({ cell, index }) => (sessionAttempts.get(slotKey(cell, index)) ?? 0) < budget)
        .sort((a, b) => a.index - b.index);
      // Past the first round a cell runs one trial at a time, so no trial is wasted once it is decided.
      const growing = new Set<string>();
      let started = 0;
      for (const { cell, index } of wanted) {
        if (index >= plan.n && (cellBusy(cell) || growing.has(cell.key))) continue;
        growing.add(cell.key);
        launch(cell, index);
        started += 1;
      }
      const remaining = inFlight.size + wanted.length - started;
      if (remaining !== lastRemaining) o.events?.planned?.(remaining);
      lastRemaining = remaining;
    }
    if (inFlight.size === 0) break;
    await Promise.race(inFlight.values());
  }
  return { tally, written, interrupted: signal.aborted, exhausted };
}
