// Phase 2 of the triage protocol simulated from phase 0: a plan executed under regime U (advisory:
// actual costs, the unit that crosses B is truncated and ends the run) or regime E (enforced: each
// unit runs with its allocation as a hard limit and the allocation is spent either way).
import type { ScoredUnit } from "./oracle.ts";

/** One entry of a plan, in execution order: the unit and the tokens allocated to it. */
export interface PlannedUnit {
  unit: ScoredUnit;
  tokens: number;
}

export interface Execution {
  value: number;
  /** Ids of the units that scored. */
  solved: string[];
  /** The unit cut off when the budget ran out (U: it crossed B; E: its allocation was cut), or null. */
  truncated: string | null;
}

/** Regime U over units in order: add each actual cost; the unit that pushes the total past B scores 0 and stops the run. */
export function executeAdvisory(order: readonly ScoredUnit[], budget: number): Execution {
  let spent = 0;
  let value = 0;
  const solved: string[] = [];
  for (const unit of order) {
    spent += unit.cost;
    if (spent > budget) return { value, solved, truncated: unit.id };
    if (unit.correct) {
      value += unit.value;
      solved.push(unit.id);
    }
  }
  return { value, solved, truncated: null };
}

/**
 * Regime E: each unit runs with its allocation a_i as its token limit and succeeds only if it is
 * correct within it (c_i <= a_i and y_i); a_i is deducted either way. An over-budget plan runs in
 * order until the budget runs out: the unit whose allocation exceeds what is left gets only what is
 * left, and is the last.
 */
export function executeEnforced(plan: readonly PlannedUnit[], budget: number): Execution {
  let left = budget;
  let value = 0;
  const solved: string[] = [];
  for (const { unit, tokens } of plan) {
    if (left <= 0) return { value, solved, truncated: unit.id };
    const limit = Math.min(tokens, left);
    left -= limit;
    if (unit.correct && unit.cost <= limit) {
      value += unit.value;
      solved.push(unit.id);
    }
    if (limit < tokens) return { value, solved, truncated: unit.id };
  }
  return { value, solved, truncated: null };
}
