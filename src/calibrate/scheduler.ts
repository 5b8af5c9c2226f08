// Runs the trials a plan still wants through the one trial engine: existing records are respected,
// retries follow the failure taxonomy, sequential screening asks for more trials as results arrive,
// and an abort stops new starts while running trials wind down (they are recorded as cancelled).

import { outcomeOf, type TrialRecord } from "../record/index.ts";
import type { LoadedTask } from "../task/index.ts";
import {
  type Admit,
  type EngineEvents,
  type TrialJob as EngineJob,
  type TrialRunner as EngineRunner,
  TrialEngine,
  type TrialSlot,
} from "../trial/index.ts";
import type { PlannedCell } from "./cells.ts";
import { Curtailer } from "./curtail.ts";
import type { Plan } from "./plan.ts";
import { type WantedTrial, wantedTrials } from "./policy.ts";
import { addRecord, type Tally, tallyRecords } from "./tally.ts";

/** A trial of a planned cell. */
export interface CellSlot extends TrialSlot {
  cell: PlannedCell;
}
export type CellJob = EngineJob<CellSlot>;
export type CellRunner = EngineRunner<CellSlot>;

export interface SchedulerOptions {
  plan: Plan;
  runDir: string;
  tasks: ReadonlyMap<string, LoadedTask>;
  runner: CellRunner;
  /** Records already in the run directory (resume). */
  records: readonly TrialRecord[];
  concurrency: number;
  providerLimits?: Readonly<Record<string, number>>;
  signal?: AbortSignal;
  events?: EngineEvents<CellSlot> & {
    /**
     * Trials that may still run: in flight and wanted. Under curtailment an upper bound (every open
     * trial of a task not yet settled); a settled task's skipped trials are not counted.
     */
    planned?(remaining: number): void;
    /** A task's remaining trials were curtailed: no outcome of them changes its decision. */
    curtailed?(task: string, decision: string): void;
  };
  /** May this trial start? (e.g. the cost ceiling's reservation, budget.ts); see UnitEngineOptions.admit. */
  admit?: CellAdmit;
}

export type CellAdmit = Admit<CellJob, TrialRecord>;

export interface SchedulerResult {
  tally: Tally;
  /** Records written in this session. */
  written: TrialRecord[];
  interrupted: boolean;
  /** Trials given up after their attempts in this session ended in errors that are not counted. */
  exhausted: number;
  /** Records of kgate's own errors (`internal`): the command reports them and fails. */
  internal: TrialRecord[];
  /** Tasks whose remaining trials were curtailed in this session. */
  curtailed: string[];
  /** Trials refused at their start (e.g. the cost ceiling), with the reason. */
  refused: { trialId: string; reason: string }[];
}

/** Mean recorded cost of a trial of each spec so far; 1 for every spec while one has none (relative order only). */
function specCosts(tally: Tally): (cell: PlannedCell) => number {
  const sums = new Map<string, { cost: number; n: number }>();
  for (const t of tally.cells.values()) {
    for (const r of t.slots.values()) {
      if (r.usage.costUsd === null) continue;
      const s = sums.get(t.cell.spec) ?? { cost: 0, n: 0 };
      s.cost += r.usage.costUsd;
      s.n += 1;
      sums.set(t.cell.spec, s);
    }
  }
  return (cell) => {
    const s = sums.get(cell.spec);
    return s && s.n > 0 && s.cost > 0 ? s.cost / s.n : 1;
  };
}

export async function runCalibration(o: SchedulerOptions): Promise<SchedulerResult> {
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
    admit: o.admit,
    events: {
      refused: (job, reason) => refused.push({ trialId: job.trialId, reason }),
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
  const refused: SchedulerResult["refused"] = [];
  const refusedSlots = new Set<string>();
  const curtailer = plan.curtail ? new Curtailer(plan) : null;
  const curtailed = new Set<string>();

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
        if (!record && !signal.aborted) refusedSlots.add(key);
      });
    inFlight.set(
      key,
      done.finally(() => inFlight.delete(key)),
    );
  };

  /**
   * Curtailment: a task's cells with a clause run one trial at a time, the relevant cell most likely
   * to settle the task first; once no outcome of the rest can change the decision, none of them runs.
   */
  const curtailedWanted = (
    task: string,
    all: WantedTrial[],
    costOf: (cell: PlannedCell) => number,
  ): WantedTrial[] => {
    const free = all.filter(({ cell }) => !cell.require);
    const judged = all.filter(({ cell }) => cell.require);
    const busy = [...inFlight.keys()].some((k) => k.startsWith(`${task} `) && judgedKey(k));
    if (busy || judged.length === 0) return free;
    const analysis = curtailer!.analyse(tally, task);
    if (analysis.settled) {
      if (!curtailed.has(task)) {
        curtailed.add(task);
        o.events?.curtailed?.(task, analysis.settled.decision);
      }
      return free;
    }
    const next = curtailer!.nextCell(tally, task, analysis, costOf);
    const pick =
      judged.find(({ cell }) => cell.key === next?.key) ??
      judged.find(({ cell }) => analysis.relevant.has(cell.key));
    return pick ? [...free, pick] : free;
  };
  const judgedCells = new Set(plan.cells.filter((c) => c.require).map((c) => c.key));
  const judgedKey = (slot: string) => judgedCells.has(slot.slice(0, slot.lastIndexOf("#")));

  const order = plan.tasks.map((t) => t.id);
  let lastRemaining = -1;
  for (;;) {
    if (!signal.aborted) {
      const open = ({ cell, index }: WantedTrial) =>
        !inFlight.has(slotKey(cell, index)) &&
        !exhaustedSlots.has(slotKey(cell, index)) &&
        !refusedSlots.has(slotKey(cell, index));
      const costOf = specCosts(tally);
      let possible = 0;
      const wanted = order
        .flatMap((id) => {
          const all = wantedTrials(plan, tally, id).filter(open);
          if (!curtailer) {
            possible += all.length;
            return all;
          }
          const picked = curtailedWanted(id, all, costOf);
          // a settled task runs only what it picked; an unsettled one may still run any open trial
          possible += curtailed.has(id) ? picked.length : all.length;
          return picked;
        })
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
      const remaining = inFlight.size + possible - started;
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
    curtailed: [...curtailed],
    refused,
  };
}
