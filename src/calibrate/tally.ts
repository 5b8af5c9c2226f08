// Trial records sorted into the cells of a plan: per cell the latest attempt of each trial index,
// and the counts the rule needs (passes, fails, infrastructure errors, unverified trials).
import { type Outcome, outcomeOf, type TrialRecord } from "../record/index.ts";
import { cellKey, type PlannedCell } from "./cells.ts";
import type { Plan } from "./plan.ts";
import type { ClauseInput } from "./rule.ts";

export interface CellTally {
  cell: PlannedCell;
  /** The latest attempt per trial index. */
  slots: Map<number, TrialRecord>;
  passes: number;
  fails: number;
  infra: number;
  unverified: number;
  /** -A trials whose agent chose REQUEST_SPEC (ran as +A) or DECLINE: counted in `unverified`, not -A answers. */
  notAnswered: number;
  /** Valid runs: passes + fails. */
  runs: number;
}

/** A -A trial the agent did not answer as -A: it asked for the specification or declined. */
export function notAnsweredMinusA(record: TrialRecord): boolean {
  const choice = record.monitor?.prospective?.choice;
  return record.condition === "-A" && (choice === "REQUEST_SPEC" || choice === "DECLINE");
}

/**
 * A trial's outcome as its cell counts it: a -A trial the agent took with the specification or
 * declined is left out of the rate like an unverified one (a REQUEST_SPEC pass is no -A pass).
 */
export function cellOutcomeOf(record: TrialRecord): Outcome {
  const o = outcomeOf(record);
  return o !== "infra" && notAnsweredMinusA(record) ? "unverified" : o;
}

/**
 * What the retain rule judges of a cell: its clause and counts (null for a cell without one);
 * `planned`: the valid trials a fixed-n cell needs (n), below which it is short.
 */
export function clauseInputOf(t: CellTally, planned?: number): ClauseInput | null {
  if (!t.cell.require) return null;
  return {
    cell: t.cell.label,
    requirement: t.cell.require,
    control: t.cell.control,
    passes: t.passes,
    runs: t.runs,
    excluded: t.infra + t.unverified,
    ...(planned === undefined ? {} : { planned }),
  };
}

export interface Tally {
  cells: Map<string, CellTally>;
  /** Records of another run or of no planned cell. */
  strays: TrialRecord[];
  /** Records whose task, artefact or agent digest differs from the plan: left out of every count. */
  mismatched: TrialRecord[];
}

export function emptyTally(plan: Plan): Tally {
  const cells = new Map<string, CellTally>();
  for (const cell of plan.cells) {
    const counts = { passes: 0, fails: 0, infra: 0, unverified: 0, notAnswered: 0, runs: 0 };
    cells.set(cell.key, { cell, slots: new Map(), ...counts });
  }
  return { cells, strays: [], mismatched: [] };
}

function expectedArtefact(plan: Plan, record: TrialRecord): string | null | undefined {
  const task = plan.tasks.find((t) => t.id === record.task.id);
  if (!task) return undefined;
  // REQUEST_SPEC placed the task's artefact before a -A trial (monitoring's prospective choice).
  if (record.condition === "-A")
    return record.monitor?.prospective?.artefactPlaced ? task.digests.artefact : null;
  if (record.condition === "+A") return task.digests.artefact;
  return task.digests.variants[record.condition.slice("variant:".length)];
}

function matchesPlan(plan: Plan, record: TrialRecord): boolean {
  const task = plan.tasks.find((t) => t.id === record.task.id);
  const agent = plan.agents.find((a) => a.name === record.agent.name);
  return (
    task !== undefined &&
    agent !== undefined &&
    record.task.digests.task === task.digests.task &&
    record.agent.digest === agent.digest &&
    record.artefactDigest === expectedArtefact(plan, record)
  );
}

function recount(t: CellTally): void {
  t.passes = t.fails = t.infra = t.unverified = t.notAnswered = 0;
  for (const record of t.slots.values()) {
    const o = cellOutcomeOf(record);
    if (o !== "infra" && notAnsweredMinusA(record)) t.notAnswered += 1;
    if (o === "pass") t.passes += 1;
    else if (o === "fail") t.fails += 1;
    else if (o === "infra") t.infra += 1;
    else t.unverified += 1;
  }
  t.runs = t.passes + t.fails;
}

/** Adds one record: a later attempt of the same index replaces the earlier one. */
export function addRecord(plan: Plan, tally: Tally, record: TrialRecord): void {
  const cell = tally.cells.get(cellKey(record.task.id, record.agent.name, record.condition));
  if (!cell || record.runId !== plan.runId) {
    tally.strays.push(record);
    return;
  }
  if (!matchesPlan(plan, record)) {
    tally.mismatched.push(record);
    return;
  }
  const previous = cell.slots.get(record.index);
  if (previous && previous.attempt > record.attempt) return;
  cell.slots.set(record.index, record);
  recount(cell);
}

export function tallyRecords(plan: Plan, records: Iterable<TrialRecord>): Tally {
  const tally = emptyTally(plan);
  for (const record of records) addRecord(plan, tally, record);
  return tally;
}

export function cellsOfTask(tally: Tally, task: string): CellTally[] {
  return [...tally.cells.values()].filter((c) => c.cell.task === task);
}
