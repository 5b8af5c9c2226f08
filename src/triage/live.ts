// Phase 2 run live under regime E: each planned unit runs again with its allocation (or what is
// left of B, when less) as its hard output-token limit, and succeeds only if it is correct and
// finished within that limit; the allocation is spent either way (`--live`, and the re-solve of
// `--resolve`).
import type { TrialError } from "../record/index.ts";
import type { UnitOutcome } from "./item-unit.ts";
import type { TriageUnit } from "./pool.ts";

/** Where a live run stands: the plan's key and the unit's position in it (a task trial's index). */
export interface LiveSlot {
  key: string;
  step: number;
}

/**
 * Runs one unit with `cap` output tokens (in phase 0, or at `at` of a plan run live). A failure that
 * is no outcome of the unit (infrastructure, cancellation) throws UnitFailure with its error of the
 * taxonomy; the engine retries it by kind, else it is logged and `--resume` runs the unit again.
 */
export type UnitRunner = (
  unit: TriageUnit,
  cap: number,
  at?: LiveSlot,
  signal?: AbortSignal,
) => Promise<UnitOutcome>;

/**
 * A unit that did not run to an outcome, with the error of the closed taxonomy that stopped it;
 * `spent`: its retries were spent already (a task unit's trial, retried by the trial engine), so the
 * unit, or the plan it ran in, is not retried again.
 */
export class UnitFailure extends Error {
  override name = "UnitFailure";
  constructor(
    readonly error: TrialError,
    readonly spent = false,
  ) {
    super(`${error.kind}: ${error.message}`);
  }
}

export interface LiveStep {
  id: string;
  limit: number;
  cost: number;
  correct: boolean;
  /** Finished within its limit (not cut off, cost <= limit). */
  within: boolean;
  /** How the run ended (a task trial's stop reason, an item reply's). */
  stopReason: string;
  /** A task unit's trial, relative to the run's folder; null for an item. */
  trial: string | null;
}

export interface LiveExecution {
  value: number;
  steps: LiveStep[];
}

export async function executeEnforcedLive(
  plan: readonly { unit: TriageUnit; tokens: number }[],
  budget: number,
  runUnit: UnitRunner,
  key: string,
  signal?: AbortSignal,
): Promise<LiveExecution> {
  let left = budget;
  let value = 0;
  const steps: LiveStep[] = [];
  for (const [step, { unit, tokens }] of plan.entries()) {
    if (left <= 0) break;
    const limit = Math.min(tokens, left);
    left -= limit;
    const outcome = await runUnit(unit, limit, { key, step }, signal);
    const within = !outcome.capped && outcome.cost <= limit;
    const correct = within && outcome.correct && !unit.unsolvable;
    if (correct) value += unit.value;
    steps.push({
      id: unit.id,
      limit,
      cost: outcome.cost,
      correct,
      within,
      stopReason: outcome.stopReason,
      trial: outcome.trial ?? null,
    });
    if (limit < tokens) break;
  }
  return { value, steps };
}
