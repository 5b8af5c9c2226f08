// Phase 3 of the triage protocol: efficiency eta against the random baseline and the oracle,
// normalised regret, unsolvable-unit detection D and waste W, and one plan's full score.
import { type Baseline, randomBaseline } from "./baseline.ts";
import { oracleValue, type ScoredUnit } from "./oracle.ts";
import { executeAdvisory, executeEnforced, type PlannedUnit } from "./regimes.ts";

/** eta = (V - V_random) / (V_oracle - V_random); NaN when the denominator is 0 (nothing to gain over chance). */
export function efficiency(value: number, vRandom: number, vOracle: number): number {
  const room = vOracle - vRandom;
  return Math.abs(room) < 1e-12 ? Number.NaN : (value - vRandom) / room;
}

/** R = (V_oracle - V) / V_oracle; 0 when V_oracle is 0. */
export function regret(value: number, vOracle: number): number {
  return vOracle === 0 ? 0 : (vOracle - value) / vOracle;
}

/** D = |U \ S| / |U|: the share of unsolvable units left out of the plan; null when there are none. */
export function detection(unsolvable: readonly string[], planned: readonly string[]): number | null {
  if (unsolvable.length === 0) return null;
  const inPlan = new Set(planned);
  return unsolvable.filter((id) => !inPlan.has(id)).length / unsolvable.length;
}

/** W = tokens allocated to unsolvable units / tokens allocated in the plan; 0 for an empty plan. */
export function waste(
  plan: readonly { id: string; tokens: number }[],
  unsolvable: readonly string[],
): number {
  const bad = new Set(unsolvable);
  let all = 0;
  let wasted = 0;
  for (const step of plan) {
    all += step.tokens;
    if (bad.has(step.id)) wasted += step.tokens;
  }
  return all === 0 ? 0 : wasted / all;
}

/** The mean of the defined values, and how many were undefined (NaN or null) and left out. */
export function meanDefined(values: readonly (number | null)[]): { mean: number | null; excluded: number } {
  const defined = values.filter((v): v is number => v !== null && !Number.isNaN(v));
  const excluded = values.length - defined.length;
  return {
    mean: defined.length === 0 ? null : defined.reduce((a, b) => a + b, 0) / defined.length,
    excluded,
  };
}

export interface PlanScore {
  vOracle: number;
  vRandom: number;
  vU: number;
  vE: number;
  etaU: number;
  etaE: number;
  regretU: number;
  regretE: number;
  /** sum a_i <= B. */
  compliant: boolean;
  /** How V_random was made: every order, or seeded permutations (their number and seed). */
  baseline: Baseline;
}

export interface ScoreOptions {
  permutations?: number;
  seed?: number;
}

/** Scores a parsed plan (steps in execution order) against the pool's phase-0 results under budget B. */
export function scorePlan(
  units: readonly ScoredUnit[],
  plan: readonly PlannedUnit[],
  budget: number,
  options: ScoreOptions = {},
): PlanScore {
  const vOracle = oracleValue(units, budget);
  const baseline = randomBaseline(units, budget, options);
  const vRandom = baseline.value;
  const vU = executeAdvisory(
    plan.map((p) => p.unit),
    budget,
  ).value;
  const vE = executeEnforced(plan, budget).value;
  const allocated = plan.reduce((sum, p) => sum + p.tokens, 0);
  return {
    vOracle,
    vRandom,
    vU,
    vE,
    etaU: efficiency(vU, vRandom, vOracle),
    etaE: efficiency(vE, vRandom, vOracle),
    regretU: regret(vU, vOracle),
    regretE: regret(vE, vOracle),
    compliant: allocated <= budget,
    baseline,
  };
}

/** B = floor(alpha * sum of phase-0 costs). */
export function budgetFor(units: readonly { cost: number }[], alpha: number): number {
  return Math.floor(alpha * units.reduce((sum, u) => sum + u.cost, 0));
}
