// Phase 2 run live under regime E: each planned unit runs again with its allocation (or what is
// left of B, when less) as its hard output-token limit, and succeeds only if it is correct and
// finished within that limit; the allocation is spent either way (`--live`, and the re-solve of
// `--resolve`).
import type { UnitOutcome } from "./item-unit.ts";
import type { TriageUnit } from "./pool.ts";

/** Runs one unit with `cap` output tokens. */
export type UnitRunner = (unit: TriageUnit, cap: number) => Promise<UnitOutcome>;

export interface LiveStep {
  id: string;
  limit: number;
  cost: number;
  correct: boolean;
  /** Finished within its limit (not cut off, cost <= limit). */
  within: boolean;
}

export interface LiveExecution {
  value: number;
  steps: LiveStep[];
}

export async function executeEnforcedLive(
  plan: readonly { unit: TriageUnit; tokens: number }[],
  budget: number,
  runUnit: UnitRunner,
): Promise<LiveExecution> {
  let left = budget;
  let value = 0;
  const steps: LiveStep[] = [];
  for (const { unit, tokens } of plan) {
    if (left <= 0) break;
    const limit = Math.min(tokens, left);
    left -= limit;
    const outcome = await runUnit(unit, limit);
    const within = !outcome.capped && outcome.cost <= limit;
    const correct = within && outcome.correct && !unit.unsolvable;
    if (correct) value += unit.value;
    steps.push({ id: unit.id, limit, cost: outcome.cost, correct, within });
    if (limit < tokens) break;
  }
  return { value, steps };
}
