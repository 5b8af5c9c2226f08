// The random baseline of the triage protocol: the mean value of uniform random orders of the whole
// pool run under regime U's rule. Exact (every order enumerated) when the pool has no more orders
// than the sample size; otherwise the mean of that many seeded permutations.
import { uniformInt } from "pure-rand/distribution/uniformInt";
import { xoroshiro128plus } from "pure-rand/generator/xoroshiro128plus";
import type { ScoredUnit } from "./oracle.ts";
import { executeAdvisory } from "./regimes.ts";

export interface BaselineOptions {
  /** Number of sampled permutations (default 1,000). */
  permutations?: number;
  /** Seed of the sampler (default 0). */
  seed?: number;
}

export interface Baseline {
  value: number;
  /** `exact`: every order of the pool was run; `sampled`: `permutations` seeded orders. */
  method: "exact" | "sampled";
  orders: number;
  seed: number;
}

function factorialAtMost(n: number, limit: number): number | null {
  let f = 1;
  for (let k = 2; k <= n; k++) {
    f *= k;
    if (f > limit) return null;
  }
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

/** V_random of `units` under `budget`. */
export function randomBaseline(
  units: readonly ScoredUnit[],
  budget: number,
  options: BaselineOptions = {},
): Baseline {
  const permutations = options.permutations ?? 1000;
  const seed = options.seed ?? 0;
  const orders = factorialAtMost(units.length, permutations);
  let sum = 0;
  if (orders !== null) {
    forEachOrder([...units], (order) => {
      sum += executeAdvisory(order, budget).value;
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
    sum += executeAdvisory(order, budget).value;
  }
  return { value: sum / permutations, method: "sampled", orders: permutations, seed };
}
