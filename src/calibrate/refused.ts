// Which trials the cost ceiling keeps from starting, read from a run's files. With nothing running, a
// trial the plan still wants is not started when what the run has spent plus the trial's worst case
// would cross the ceiling; under curtailment a task is held when no cell whose next trial could change
// its decision fits, and then every trial it still wants waits with it. A session gives a trial up
// only in that state (scheduler.ts), so what it left unrun for want of budget is exactly this list;
// `--resume <run> --max-cost <more>` runs it.
import type { Budget } from "../report/index.ts";
import { dollars } from "./budget.ts";
import type { Curtailer } from "./curtail.ts";
import type { Plan } from "./plan.ts";
import { type WantedTrial, wantedTrials } from "./policy.ts";
import type { Tally } from "./tally.ts";

/** A cell's trials not started because of the ceiling. */
export interface RefusedCell {
  task: string;
  /** The cell's label, as Table 1 names it. */
  cell: string;
  key: string;
  /** Trial indices (0-based, as in the trial ids). */
  trials: number[];
  worstCaseUsd: number;
}

/** Within the ceiling, with 1e-12 of slack for sums of prices. */
export const fits = (spent: number, worst: number, ceiling: number) => spent + worst <= ceiling + 1e-12;

function grouped(plan: Plan, task: string, trials: readonly WantedTrial[]): RefusedCell[] {
  const byCell = new Map<string, RefusedCell>();
  for (const { cell, index } of trials) {
    const entry = byCell.get(cell.key) ?? {
      task,
      cell: cell.label,
      key: cell.key,
      trials: [],
      worstCaseUsd: plan.ceiling?.worstCaseUsd[cell.key] ?? 0,
    };
    entry.trials.push(index);
    byCell.set(cell.key, entry);
  }
  return [...byCell.values()].map((e) => ({ ...e, trials: [...new Set(e.trials)].sort((a, b) => a - b) }));
}

/** The trials of one task the ceiling holds back, by cell; empty when none (or the plan has no ceiling). */
export function refusedOfTask(
  plan: Plan,
  tally: Tally,
  task: string,
  spent: number,
  curtailer: Curtailer | null,
): RefusedCell[] {
  const ceiling = plan.ceiling;
  if (!ceiling) return [];
  const wanted = wantedTrials(plan, tally, task);
  const over = (t: WantedTrial) => !fits(spent, ceiling.worstCaseUsd[t.cell.key] ?? 0, ceiling.usd);
  if (!curtailer) return grouped(plan, task, wanted.filter(over));
  const free = wanted.filter((t) => !t.cell.require);
  const judged = wanted.filter((t) => t.cell.require);
  const analysis = judged.length > 0 ? curtailer.analyse(tally, task) : null;
  const next = analysis?.settled ? [] : judged.filter((t) => analysis?.relevant.has(t.cell.key));
  const held = next.length > 0 && next.every(over) ? judged : [];
  return grouped(plan, task, [...held, ...free.filter(over)]);
}

/** "#0-#2, #4": trial indices as ranges. */
export function indexRanges(indices: readonly number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < indices.length; i++) {
    let j = i;
    while (j + 1 < indices.length && indices[j + 1] === indices[j]! + 1) j++;
    parts.push(j === i ? `#${indices[i]}` : `#${indices[i]}-#${indices[j]}`);
    i = j;
  }
  return parts.join(", ");
}

/**
 * A task's ceiling sentence: which trials were not started and why, e.g. `cost ceiling $2 (spent
 * $1.7, $0.3 left): 6 trial(s) not started: frontier+A #3-#4, frontier-A #1-#4; each could cost up to
 * $0.78, more than is left`. Under curtailment the cells that would fit wait for the ones that do not.
 */
export function ceilingSentence(plan: Plan, refused: readonly RefusedCell[], spent: number): string {
  const ceiling = plan.ceiling!.usd;
  const left = Math.max(0, ceiling - spent);
  const total = refused.reduce((s, r) => s + r.trials.length, 0);
  const list = refused.map((r) => `${r.cell} ${indexRanges(r.trials)}`).join(", ");
  const over = refused.filter((r) => !fits(spent, r.worstCaseUsd, ceiling));
  const waiting = refused.filter((r) => fits(spent, r.worstCaseUsd, ceiling));
  const costs = [...new Set(over.map((r) => r.worstCaseUsd))].sort((a, b) => b - a).map(dollars);
  const why =
    `${over.map((r) => r.cell).join(", ")}: a trial could cost up to ${costs.join(" or ")}, more than is left` +
    (waiting.length > 0
      ? `; ${waiting.map((r) => r.cell).join(", ")} wait for them (curtailment runs a task's cells in turn)`
      : "");
  return `cost ceiling ${dollars(ceiling)} (spent ${dollars(spent)}, ${dollars(left)} left): ${total} trial(s) not started: ${list} (${why})`;
}

/** The run's budget in words, for its notes: the ceiling, what was spent, and what it held back. */
export function budgetLine(plan: Plan, budget: Budget): string {
  const ceiling = plan.ceiling!.usd;
  const head = `cost ceiling ${dollars(ceiling)}: spent ${dollars(budget.spentUsd)}, reserved ${dollars(budget.reservedUsd)}`;
  if (budget.refused.length === 0)
    return `${head} (a resume keeps it: kgate calibrate --resume ${plan.runId} --max-cost <more> raises it)`;
  const trials = budget.refused.reduce((s, r) => s + r.trials.length, 0);
  const tasks = new Set(budget.refused.map((r) => r.task)).size;
  return (
    `${head}; ${trials} trial(s) of ${tasks} task(s) not started because their worst case would cross it ` +
    `(each task's reasons name them; continue with  kgate calibrate --resume ${plan.runId} --max-cost <more than ${dollars(ceiling)}>)`
  );
}
