// Runs the trials a plan still wants through the one trial engine: existing records are respected,
// retries follow the failure taxonomy, sequential screening asks for more trials as results arrive,
// the cost ceiling admits trials in one fixed order (admission.ts), and an abort stops new starts
// while running trials wind down (they are recorded as cancelled).

import { usd } from "../cost/index.ts";
import { outcomeOf, type TrialRecord } from "../record/index.ts";
import type { LoadedTask } from "../task/index.ts";
import {
  type Admission,
  type EngineEvents,
  type TrialJob as EngineJob,
  type TrialRunner as EngineRunner,
  TrialEngine,
  type TrialSlot,
} from "../trial/index.ts";
import {
  type AdmissionKey,
  BudgetGate,
  type Claim,
  claimedBefore,
  claimsOf,
  compareKeys,
  judgedOrdinal,
} from "./admission.ts";
import { chargedUsd, spentUsd, worstOf } from "./budget.ts";
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
}

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
  /** The cost ceiling's spend and reservations at the end (null: the plan has none). */
  budget: { spentUsd: number; reservedUsd: number } | null;
}

/** A wanted trial with its place in the order of admission, its worst case, and the sequence it heads. */
interface KeyedTrial extends WantedTrial {
  key: AdmissionKey;
  worst: number;
  /** A curtailed task's id or a screening cell's key when the trial is the head of such a sequence. */
  sequence: string | null;
}

export async function runCalibration(o: SchedulerOptions): Promise<SchedulerResult> {
  const { plan } = o;
  const tally = tallyRecords(plan, o.records);
  const agents = new Map(plan.agents.map((a) => [a.name, a]));
  const signal = o.signal ?? new AbortController().signal;
  const gate = plan.ceiling ? new BudgetGate(plan.ceiling.usd, spentUsd(plan, o.records)) : null;
  /** Reservations made as a trial was admitted, taken by its first attempt (slot key -> reservation id). */
  const admitted = new Map<string, string>();
  /** Each launched slot's place in the order of admission (its retries are charged there too). */
  const keys = new Map<string, AdmissionKey>();
  const engine = new TrialEngine<CellSlot>({
    runId: plan.runId,
    runDir: o.runDir,
    runner: o.runner,
    concurrency: o.concurrency,
    providerLimits: o.providerLimits,
    retries: plan.infraRetries,
    signal,
    admit: gate ? (job) => admitAttempt(gate, job) : undefined,
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
  const slotsOf = (prefix: string) => [...inFlight.keys()].some((k) => k.startsWith(prefix));
  const cellBusy = (cell: PlannedCell) => slotsOf(`${cell.key}#`);

  /** The first attempt takes the reservation made at admission; a retry is admitted only if it fits now. */
  const admitAttempt = (g: BudgetGate, job: CellJob): Admission<TrialRecord> => {
    const slot = slotKey(job.cell, job.index);
    let id = admitted.get(slot);
    admitted.delete(slot);
    if (id === undefined) {
      const worst = worstOf(plan, job.cell.key);
      if (!g.fitsNow(worst)) return { ok: false, reason: overReason(g, worst, `${job.trialId} (a retry)`) };
      id = `${slot}@${job.attempt}`;
      g.reserve(id, keys.get(slot)!, worst);
    }
    const reservation = id;
    return { ok: true, settle: (record) => g.settle(reservation, record ? chargedUsd(plan, record) : null) };
  };

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
   * Curtailment: a task's cells with a clause run one trial at a time, the cell chosen to settle the
   * task in the fewest trials first; once no outcome of the rest can change the decision, none of them runs.
   */
  const curtailedWanted = (task: string, all: WantedTrial[]): WantedTrial[] => {
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
    const next = curtailer!.nextCell(tally, task, analysis);
    const pick =
      judged.find(({ cell }) => cell.key === next?.key) ??
      judged.find(({ cell }) => analysis.relevant.has(cell.key));
    return pick ? [...free, pick] : free;
  };
  const judgedCells = new Set(plan.cells.filter((c) => c.require).map((c) => c.key));
  const judgedKey = (slot: string) => judgedCells.has(slot.slice(0, slot.lastIndexOf("#")));

  /**
   * Every open trial the plan wants now, in the order of admission: [index, task, cell] (index-major,
   * so an interrupted run has evidence on every cell), a curtailed task's judged trial by its place in
   * the task's sequence; `possible` counts the trials that may still run.
   */
  const wantedNow = () => {
    const open = ({ cell, index }: WantedTrial) =>
      !inFlight.has(slotKey(cell, index)) &&
      !exhaustedSlots.has(slotKey(cell, index)) &&
      !refusedSlots.has(slotKey(cell, index));
    let possible = 0;
    const wanted: KeyedTrial[] = plan.tasks.flatMap(({ id }, ti) => {
      const all = wantedTrials(plan, tally, id).filter(open);
      const picked = curtailer ? curtailedWanted(id, all) : all;
      // a settled task runs only what it picked; an unsettled one may still run any open trial
      possible += curtailer && curtailed.has(id) ? picked.length : all.length;
      return picked.map((w): KeyedTrial => {
        const worst = worstOf(plan, w.cell.key);
        if (curtailer && w.cell.require)
          return { ...w, worst, key: [judgedOrdinal(tally, id), ti, -1], sequence: id };
        const added = plan.mode === "sequential" && w.index >= plan.n && w.cell.require !== null;
        return {
          ...w,
          worst,
          key: [w.index, ti, plan.cells.indexOf(w.cell)],
          sequence: added ? w.cell.key : null,
        };
      });
    });
    return { wanted: wanted.sort((a, b) => compareKeys(a.key, b.key)), possible };
  };

  /** The trial is not started in this session: the ceiling leaves no room for it whatever settles. */
  const giveUp = (g: BudgetGate, w: KeyedTrial) => {
    refusedSlots.add(slotKey(w.cell, w.index));
    const id = `${w.cell.task}/${w.cell.label}#${w.index}`;
    refused.push({ trialId: id, reason: overReason(g, w.worst, id) });
  };

  let lastRemaining = -1;
  for (;;) {
    let waiting: KeyedTrial | null = null;
    let restart = false;
    if (!signal.aborted) {
      const { wanted, possible } = wantedNow();
      const claims: Map<string, Claim> = gate
        ? claimsOf({ plan, tally, curtailer, settled: curtailed, inFlight: new Set(inFlight.keys()) })
        : new Map();
      // Past the first round a cell runs one trial at a time, so no trial is wasted once it is decided;
      // without curtailment a task's added trials go in rounds (one per open cell, once the task is idle).
      const idle = new Set(plan.tasks.map((t) => t.id).filter((id) => !slotsOf(`${id} `)));
      const growing = new Set<string>();
      let started = 0;
      let waitingUsd = 0;
      for (const w of wanted) {
        const busy = curtailer ? cellBusy(w.cell) : !idle.has(w.cell.task);
        if (w.index >= plan.n && (busy || growing.has(w.cell.key))) continue;
        if (gate) {
          const verdict = gate.decide(
            w.key,
            w.worst,
            waitingUsd + claimedBefore([...claims.values()], w.key),
          );
          if (verdict === "refuse") {
            giveUp(gate, w);
            restart = true;
            break;
          }
          if (verdict === "wait") {
            // a sequence's head is already counted in its claim
            if (!w.sequence) waitingUsd += w.worst;
            waiting ??= w;
            continue;
          }
          const id = `${slotKey(w.cell, w.index)}@admitted`;
          gate.reserve(id, w.key, w.worst);
          admitted.set(slotKey(w.cell, w.index), id);
          keys.set(slotKey(w.cell, w.index), w.key);
          const claim = w.sequence ? claims.get(w.sequence) : undefined;
          if (claim)
            claims.set(w.sequence!, {
              ...claim,
              key: [claim.key[0] + 1, claim.key[1], claim.key[2]],
              count: claim.count - 1,
            });
        }
        growing.add(w.cell.key);
        launch(w.cell, w.index);
        started += 1;
      }
      const remaining = inFlight.size + possible - started;
      if (remaining !== lastRemaining) o.events?.planned?.(remaining);
      lastRemaining = remaining;
    }
    if (restart) continue;
    if (inFlight.size === 0) {
      // Nothing runs, so nothing can settle: a trial still waiting is given up (only a retry can cause it).
      if (gate && waiting) {
        giveUp(gate, waiting);
        continue;
      }
      break;
    }
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
    budget: gate ? { spentUsd: gate.spent, reservedUsd: gate.reserved } : null,
  };
}

/** Why a trial did not start: the ceiling, what was spent and reserved, and its worst case. */
function overReason(g: BudgetGate, worst: number, what: string): string {
  return (
    `cost ceiling $${g.ceilingUsd}: spent $${usd(g.spent)} + reserved $${usd(g.reserved)} + ${what}'s ` +
    `worst case $${usd(worst)} would cross it`
  );
}
