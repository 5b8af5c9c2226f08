// Runs the trials a plan still wants through the one trial engine: existing records are respected,
// retries follow the failure taxonomy, sequential screening asks for more trials as results arrive,
// and an abort stops new starts while running trials wind down (they are recorded as cancelled).

import { outcomeOf, type TrialRecord } from "../model/index.ts";
import type { LoadedTask } from "../task/index.ts";
import {
  type EngineEvents,
  type TrialJob as EngineJob,
  type TrialRunner as EngineRunner,
  TrialEngine,
  type TrialSlot,
} from "../trial/index.ts";
import type { PlannedCell } from "./cells.ts";
import type { Plan } from "./plan.ts";
import { wantedTrials } from "./policy.ts";
import { addRecord, type Tally, tallyRecords } from "./tally.ts";

/** A trial of a planned cell. */
export interface CellSlot extends TrialSlot {
  cell: PlannedCell;
}
export type TrialJob = EngineJob<CellSlot>;
export type TrialRunner = EngineRunner<CellSlot>;

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
  events?: EngineEvents<CellSlot> & { planned?(remaining: number): void };
}

export interface EngineResult {
  tally: Tally;
  /** Records written in this session. */
  written: TrialRecord[];
  interrupted: boolean;
  /** Trials given up after their attempts in this session ended in errors that are not counted. */
  exhausted: number;
  /** Records of kgate's own errors (`internal`): the command reports them and fails. */
  internal: TrialRecord[];
}

export async function runCalibration(o: EngineOptions): Promise<EngineResult> {
  const { plan } = o;
  const tally = tallyRecords(plan, o.records);
  const agents = new Map(plan.agents.map((a) => [a.name, a]));
  const signal = o.signal ?? new AbortController().signal;
  const engine = new TrialEngine<CellSlot>({
    runId: plan.runId,
    runDir: o.runDir,
    runner: o.runner,
    concurrency: o.concurrency,
    providerLimits: o.providerLimits,
    retries: plan.infraRetries,
    signal,
    events: {
      started: (job) => o.events?.started?.(job),
      finished: (job, record, outcome, retrying) => {
        addRecord(plan, tally, record);
        o.events?.finished?.(job, record, outcome, retrying);
      },
    },
  });
  /** Slots given up in this session (their last attempt not counted); a resume tries them again. */
  const exhaustedSlots = new Set<string>();
  const inFlight = new Map<string, Promise<void>>();

  const slotKey = (cell: PlannedCell, index: number) => `${cell.key}#${index}`;
  const cellBusy = (cell: PlannedCell) => [...inFlight.keys()].some((k) => k.startsWith(`${cell.key}#`));

  const launch = (cell: PlannedCell, index: number) => {
    const key = slotKey(cell, index);
    const task = o.tasks.get(cell.task);
    const agent = agents.get(cell.agent);
    if (!task || !agent)
      throw new Error(`plan names task "${cell.task}" or agent "${cell.agent}" it does not define`);
    const previousAttempt = tally.cells.get(cell.key)?.slots.get(index)?.attempt ?? 0;
    const done = engine
      .run({ task, condition: cell.condition, agent, index, previousAttempt, cell })
      .then((record) => {
        if (record && outcomeOf(record) === "infra") exhaustedSlots.add(key);
      });
    inFlight.set(
      key,
      done.finally(() => inFlight.delete(key)),
    );
  };

  const order = plan.tasks.map((t) => t.id);
  let lastRemaining = -1;
  for (;;) {
    if (!signal.aborted) {
      const wanted = order
        .flatMap((id) => wantedTrials(plan, tally, id))
        .filter(({ cell, index }) => !inFlight.has(slotKey(cell, index)))
        .filter(({ cell, index }) => !exhaustedSlots.has(slotKey(cell, index)))
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
  return {
    tally,
    written: engine.written,
    interrupted: signal.aborted,
    exhausted: exhaustedSlots.size,
    internal: engine.internal,
  };
}
