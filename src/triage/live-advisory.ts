// Phase 2 run live under regime U (`--live`): each planned unit runs again, in plan order, as phase 0
// ran it, its actual cost added to a running total; the unit that pushes the total past B is
// truncated, scores 0, and execution stops. Each run is capped at what is left of B (past it the unit
// would be truncated anyway), which saves tokens and changes no score.
import type { UnitRunner } from "./live.ts";
import type { TriageUnit } from "./pool.ts";

export interface AdvisoryStep {
  id: string;
  /** The cap it ran with: min(phase 0's own cap, what was left of B); 0 when nothing was left. */
  limit: number;
  cost: number;
  correct: boolean;
  /** It pushed the running total past B (or was cut at what was left of it): scores 0, the last step. */
  truncated: boolean;
  stopReason: string;
  /** A task unit's trial, relative to the run's folder; null for an item or a unit not run. */
  trial: string | null;
}

export interface AdvisoryExecution {
  value: number;
  steps: AdvisoryStep[];
}

/** The stop reason of a unit not run because the running total had reached B exactly. */
export const NOT_RUN = "not run: the budget was spent";

/**
 * Regime U live. `ownCap` is the output-token cap phase 0 ran a unit with (an item's `--unit-cap`, a
 * task configuration's `outputTokenBudget`, Infinity without one). A run cut at what was left of B
 * (not at its own cap) would have cost more uncut, so it is truncated; a run cut at its own cap is
 * scored as phase 0 scores it. When the total is exactly B, the next unit is recorded as truncated
 * without being run (any reply of at least one token would cross B).
 */
export async function executeAdvisoryLive(
  plan: readonly { unit: TriageUnit }[],
  budget: number,
  runUnit: UnitRunner,
  key: string,
  ownCap: number,
  signal?: AbortSignal,
): Promise<AdvisoryExecution> {
  let spent = 0;
  let value = 0;
  const steps: AdvisoryStep[] = [];
  for (const [step, { unit }] of plan.entries()) {
    const left = budget - spent;
    if (left <= 0) {
      steps.push({
        id: unit.id,
        limit: 0,
        cost: 0,
        correct: false,
        truncated: true,
        stopReason: NOT_RUN,
        trial: null,
      });
      break;
    }
    const limit = Math.min(ownCap, left);
    const outcome = await runUnit(unit, limit, { key, step }, signal);
    spent += outcome.cost;
    const cutAtLeft = outcome.capped && limit < ownCap && outcome.cost >= limit;
    const truncated = spent > budget || cutAtLeft;
    const correct = !truncated && outcome.correct && !unit.unsolvable;
    if (correct) value += unit.value;
    steps.push({
      id: unit.id,
      limit,
      cost: outcome.cost,
      correct,
      truncated,
      stopReason: outcome.stopReason,
      trial: outcome.trial ?? null,
    });
    if (truncated) break;
  }
  return { value, steps };
}
