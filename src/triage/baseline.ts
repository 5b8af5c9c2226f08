// The random baseline of the triage protocol: the mean value of uniform random orders of the whole
// pool run under regime U's rule. Exact (every order enumerated) for pools of at most 9 units
// (9! = 362,880 orders); above, the mean of seeded permutations.
import { uniformInt } from "pure-rand/distribution/uniformInt";
import { xoroshiro128plus } from "pure-rand/generator/xoroshiro128plus";
import type { ScoredUnit } from "./oracle.ts";

export interface BaselineOptions {
  /** Number of sampled permutations above EXACT_MAX_UNITS units (default 1,000). */
  permutations?: number;
  /** Seed of the sampler (default 0). */
  seed?: number;
}

/** Pools up to this size get the exact baseline: every one of their n! orders is run. */
export const EXACT_MAX_UNITS = 9;

export interface Baseline {
  value: number;
  /** `exact`: every order of the pool was run; `sampled`: `permutations` seeded orders. */
  method: "exact" | "sampled";
  orders: number;
  seed: number;
}

function factorial(n: number): number {
  let f = 1;
  for (let k = 2; k <= n; k++) f *= k;
  return f;
}

/** Every ordering of `items` (Heap's algorithm), handed to `visit` one at a time. */
function forEachOrder<T>(items: T[], visit: (order: readonly T[]) => void): void {
  const a = [...items];
  const c = new Array<number>(a.length).fill(0);
  visit(a);
  let i = 1;
  while (i < a.length) {
    if (c[i]! < i) {
      const j = i % 2 === 0 ? 0 : c[i]!;
      [a[j], a[i]] = [a[i]!, a[j]!];
      visit(a);
      c[i]!++;
      i = 1;
    } else {
      c[i] = 0;
      i++;
    }
  }
}

/** The value of one order under regime U's rule (executeAdvisory's value, without its lists). */
function advisoryValue(order: readonly ScoredUnit[], budget: number): number {
  let spent = 0;
  let value = 0;
  for (const unit of order) {
    spent += unit.cost;
    if (spent > budget) break;
    if (unit.correct) value += unit.value;
  }
  return value;
}

/** V_random of `units` under `budget`. */
export function randomBaseline(
  units: readonly ScoredUnit[],
  budget: number,
  options: BaselineOptions = {},
): Baseline {
  const permutations = options.permutations ?? 1000;
  const seed = options.seed ?? 0;
  let sum = 0;
  if (units.length <= EXACT_MAX_UNITS) {
    const orders = factorial(units.length);
    forEachOrder([...units], (order) => {
      sum += advisoryValue(order, budget);
    });
    return { value: sum / orders, method: "exact", orders, seed };
  }
  const rng = xoroshiro128plus(seed);
  const order = [...units];
  for (let p = 0; p < permutations; p++) {
    for (let i = order.length - 1; i > 0; i--) {
      const j = uniformInt(rng, 0, i);
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    sum += advisoryValue(order, budget);
  }
  return { value: sum / permutations, method: "sampled", orders: permutations, seed };
}
