// Which trials a plan still wants, given what has run: the first n of every cell (a trial whose
// latest attempt was an infrastructure error is wanted again), then under sequential screening one
// more at a time for cells whose clause is undecided, until decided or capped. A task whose rule
// clause is decided "not met" gets no further trials: it is discarded whatever the rest shows.

import { outcomeOf } from "../record/index.ts";
import type { PlannedCell } from "./cells.ts";
import type { Plan } from "./plan.ts";
import { type ClauseInput, type ClauseResult, sequentialClause } from "./rule.ts";
import { type CellTally, cellsOfTask, clauseInputOf, type Tally } from "./tally.ts";

export interface WantedTrial {
  cell: PlannedCell;
  index: number;
}

/** The clause of a cell, judged the way the plan's mode judges it (sequential only here). */
export function sequentialResult(
  plan: Plan,
  t: CellTally,
  held: Pick<ClauseInput, "refused" | "curtailed"> = {},
): ClauseResult | null {
  const input = clauseInputOf(t);
  return input && sequentialClause({ ...input, ...held }, plan.sequential, plan.sequential.cap);
}

function firstRound(plan: Plan, t: CellTally): number[] {
  const out: number[] = [];
  for (let i = 0; i < plan.n; i++) {
    const record = t.slots.get(i);
    if (!record || outcomeOf(record) === "infra") out.push(i);
  }
  return out;
}

/** The next trial of a growing cell: the last one again when it ended in an infrastructure error. */
function nextIndex(t: CellTally): number {
  const last = Math.max(-1, ...t.slots.keys());
  const record = t.slots.get(last);
  return record && outcomeOf(record) === "infra" ? last : last + 1;
}

/** True when sequential screening has settled the task as discarded. */
export function decidedDiscard(plan: Plan, cells: CellTally[]): boolean {
  return cells.some((t) => !t.cell.control && sequentialResult(plan, t)?.verdict === "not-met");
}

/** Trials still wanted for one task, first round first, in cell order. */
export function wantedTrials(plan: Plan, tally: Tally, task: string): WantedTrial[] {
  const cells = cellsOfTask(tally, task);
  const wanted: WantedTrial[] = [];
  for (const t of cells) for (const index of firstRound(plan, t)) wanted.push({ cell: t.cell, index });
  if (plan.mode === "fixed" || decidedDiscard(plan, cells)) return wanted;
  for (const t of cells) {
    if (firstRound(plan, t).length > 0) continue;
    const result = sequentialResult(plan, t);
    // Every trial that ran uses a place of the cap, verified or not (an unverified one, or a -A trial
    // the agent did not answer as -A, too): screening stays bounded.
    if (result?.verdict !== "undecided" || t.runs + t.unverified >= plan.sequential.cap) continue;
    wanted.push({ cell: t.cell, index: nextIndex(t) });
  }
  return wanted;
}

/** What the cost ceiling holds back of a task: its trials without a record, and the sentence that says so. */
export interface CeilingHold {
  notStarted: number;
  sentence: string;
}

/**
 * In words, why a task's decision must wait: trials that never ran, trials the cost ceiling holds back
 * (never called "not run yet": they run only once the ceiling is raised), or clauses still open. Null when none.
 */
export function pendingReason(
  plan: Plan,
  tally: Tally,
  task: string,
  held: CeilingHold | null = null,
): string | null {
  const cells = cellsOfTask(tally, task);
  const neverRan = cells.reduce((sum, t) => {
    let missing = 0;
    for (let i = 0; i < plan.n; i++) if (!t.slots.has(i)) missing += 1;
    return sum + missing;
  }, 0);
  const notYet = neverRan - (held?.notStarted ?? 0);
  const parts = [
    ...(notYet > 0 ? [`${notYet} of ${cells.length * plan.n} planned trials have not run yet`] : []),
    ...(held ? [held.sentence] : []),
  ];
  if (neverRan > 0 || plan.mode === "fixed" || decidedDiscard(plan, cells))
    return parts.length > 0 ? parts.join("; ") : null;
  const open = cells.filter((t) => {
    const r = sequentialResult(plan, t);
    return r?.verdict === "undecided" && t.runs + t.unverified < plan.sequential.cap;
  });
  if (open.length > 0)
    parts.unshift(
      `still screening: ${open.map((t) => `${t.cell.label} (${t.passes}/${t.runs})`).join(", ")} not yet decided`,
    );
  return parts.length > 0 ? parts.join("; ") : null;
}
