// The knapsack oracle of the triage protocol: the most value a plan could reach under budget B,
// knowing every unit's phase-0 cost and correctness (0-1 knapsack over the correct units).

/** A unit as the scores see it: phase-0 cost (tokens), correctness, and value (a positive integer). */
export interface ScoredUnit {
  id: string;
  cost: number;
  correct: boolean;
  value: number;
}

/**
 * Exact 0-1 knapsack for positive integer values, by dynamic programming over value sums:
 * cheapest[v] is the least total cost of a subset worth exactly v; the answer is the largest v
 * whose cheapest subset fits. Time O(n * sum of values), memory O(sum of values).
 */
export function knapsackByValueSums(
  units: readonly { cost: number; value: number }[],
  budget: number,
): number {
  let total = 0;
  for (const u of units) {
    if (!Number.isInteger(u.value) || u.value <= 0)
      throw new Error(`knapsack values must be positive integers (got ${u.value})`);
    total += u.value;
  }
  const cheapest = new Float64Array(total + 1).fill(Number.POSITIVE_INFINITY);
  cheapest[0] = 0;
  let reachable = 0;
  for (const u of units) {
    reachable += u.value;
    for (let v = reachable; v >= u.value; v--) {
      const withUnit = cheapest[v - u.value]! + u.cost;
      if (withUnit < cheapest[v]!) cheapest[v] = withUnit;
    }
  }
  for (let v = total; v > 0; v--) if (cheapest[v]! <= budget) return v;
  return 0;
}

/** Exact 0-1 knapsack when every value is 1: take the cheapest units while they fit. */
export function knapsackUnitValues(costs: readonly number[], budget: number): number {
  const sorted = Float64Array.from(costs).sort();
  let spent = 0;
  let taken = 0;
  for (const cost of sorted) {
    if (spent + cost > budget) break;
    spent += cost;
    taken++;
  }
  return taken;
}

/** V_oracle: the best value reachable under `budget` over the units answered correctly in phase 0. */
export function oracleValue(units: readonly ScoredUnit[], budget: number): number {
  const correct = units.filter((u) => u.correct);
  if (correct.every((u) => u.value === 1))
    return knapsackUnitValues(
      correct.map((u) => u.cost),
      budget,
    );
  return knapsackByValueSums(correct, budget);
}
