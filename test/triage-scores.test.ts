// The triage scores: the seed's worked example, the knapsack oracle on hand cases and random pools,
// the random baseline, eta at alpha = 1, regret, and D / W at injection ratios 0 and 1.
import { describe, expect, it } from "vitest";
import {
  budgetFor,
  detection,
  efficiency,
  executeAdvisory,
  executeEnforced,
  knapsackByValueSums,
  knapsackUnitValues,
  meanDefined,
  oracleValue,
  randomBaseline,
  regret,
  type ScoredUnit,
  scorePlan,
  waste,
} from "../src/triage/index.ts";

const unit = (id: string, cost: number, correct: boolean, value = 1): ScoredUnit => ({
  id,
  cost,
  correct,
  value,
});

/**
 * The exact expected V of a uniformly random order under regime U, counted without permutations:
 * a correct unit i scores iff the units before it and i itself cost at most B (costs are >= 0, so
 * the run has not stopped before i then). The set S before i is any subset of the others, with
 * probability |S|! (n - 1 - |S|)! / n!.
 */
function bySubsets(pool: readonly ScoredUnit[], budget: number): number {
  const n = pool.length;
  const factorial = (k: number): number => (k <= 1 ? 1 : k * factorial(k - 1));
  let expected = 0;
  for (const [i, u] of pool.entries()) {
    if (!u.correct) continue;
    const others = pool.filter((_, j) => j !== i);
    for (let mask = 0; mask < 2 ** others.length; mask++) {
      const before = others.filter((_, j) => (mask >> j) & 1);
      const spent = before.reduce((s, o) => s + o.cost, 0) + u.cost;
      if (spent <= budget)
        expected += (u.value * factorial(before.length) * factorial(n - 1 - before.length)) / factorial(n);
    }
  }
  return expected;
}

describe("the seed's worked example (B = 2000, c = (500, 2500, 1000), y = (1, 0, 1))", () => {
  const u1 = unit("1", 500, true);
  const u2 = unit("2", 2500, false);
  const u3 = unit("3", 1000, true);
  const pool = [u1, u2, u3];
  const B = 2000;
  const plan = [
    { unit: u1, tokens: 400 },
    { unit: u2, tokens: 1600 },
  ];

  it("V_oracle = 2: units 1 and 3 are correct and 500 + 1000 = 1500 <= 2000", () => {
    expect(oracleValue(pool, B)).toBe(2);
  });

  it("V_U = 1: unit 1 (500 <= 2000) scores, unit 2 takes the total to 3000 > 2000 and stops the run", () => {
    expect(executeAdvisory([u1, u2], B)).toEqual({ value: 1, solved: ["1"], truncated: "2" });
  });

  it("V_E = 0: unit 1 needs 500 > a = 400, unit 2 is wrong (and needs 2500 > 1600); R_E = (2 - 0) / 2 = 1", () => {
    expect(executeEnforced(plan, B).value).toBe(0);
    expect(regret(0, 2)).toBe(1);
  });

  it("V_random = 1.0 exactly: the mean over the six orders under regime U's rule", () => {
    // Walk each order adding actual costs; the unit crossing 2000 scores 0 and stops the run.
    //   1,2,3: 500 ok (+1), 3000 > 2000 stop              -> 1
    //   1,3,2: 500 ok (+1), 1500 ok (+1), 4000 stop       -> 2
    //   2,1,3: 2500 > 2000 stop                           -> 0
    //   2,3,1: 2500 > 2000 stop                           -> 0
    //   3,1,2: 1000 ok (+1), 1500 ok (+1), 4000 stop      -> 2
    //   3,2,1: 1000 ok (+1), 3500 stop                    -> 1
    // mean = (1 + 2 + 0 + 0 + 2 + 1) / 6 = 6 / 6 = 1.0
    const byHand = [
      [[u1, u2, u3], 1],
      [[u1, u3, u2], 2],
      [[u2, u1, u3], 0],
      [[u2, u3, u1], 0],
      [[u3, u1, u2], 2],
      [[u3, u2, u1], 1],
    ] as const;
    for (const [order, value] of byHand) expect(executeAdvisory(order, B).value).toBe(value);
    const baseline = randomBaseline(pool, B);
    expect(baseline.method).toBe("exact");
    expect(baseline.orders).toBe(6);
    expect(baseline.value).toBe(1);
  });

  it("eta_U = (1 - 1) / (2 - 1) = 0 and eta_E = (0 - 1) / (2 - 1) = -1.0, not the paper's ~0.25 / ~-0.50", () => {
    const s = scorePlan(pool, plan, B);
    expect(s).toEqual({
      vOracle: 2,
      vRandom: 1,
      vU: 1,
      vE: 0,
      etaU: 0,
      etaE: -1,
      regretU: 0.5, // (2 - 1) / 2
      regretE: 1, // (2 - 0) / 2
      compliant: true, // 400 + 1600 = 2000 <= 2000
      baseline: { value: 1, method: "exact", orders: 6, seed: 0 }, // 3! orders
    });
  });
});

describe("the knapsack oracle", () => {
  it("finds the best subset with unequal values where greedy by value or by cost is wrong", () => {
    // B = 10; (cost, value): a (6, 6), b (5, 5), c (5, 5). Best: b + c = 10 tokens, value 10
    // (a alone is 6; a + b = 11 > 10). Cheapest-first would also take b, c; most-valuable-first takes a.
    expect(
      knapsackByValueSums(
        [
          { cost: 6, value: 6 },
          { cost: 5, value: 5 },
          { cost: 5, value: 5 },
        ],
        10,
      ),
    ).toBe(10);
    // B = 7; a (1, 1), b (7, 10): b alone = 10 beats a = 1 (a + b = 8 > 7); cheapest-first takes a -> 1.
    expect(
      knapsackByValueSums(
        [
          { cost: 1, value: 1 },
          { cost: 7, value: 10 },
        ],
        7,
      ),
    ).toBe(10);
    // B = 50; (10, 60), (20, 100), (30, 120): the textbook case, best 100 + 120 = 220 at 50 tokens.
    expect(
      knapsackByValueSums(
        [
          { cost: 10, value: 60 },
          { cost: 20, value: 100 },
          { cost: 30, value: 120 },
        ],
        50,
      ),
    ).toBe(220);
    expect(knapsackByValueSums([{ cost: 11, value: 3 }], 10)).toBe(0);
  });

  it("counts only correct units: an incorrect unit is worth nothing however cheap", () => {
    // correct: b (7, 4); incorrect: a (1, 9). B = 8 -> only b can score -> 4.
    expect(oracleValue([unit("a", 1, false, 9), unit("b", 7, true, 4)], 8)).toBe(4);
  });

  it("rejects values that are not positive integers", () => {
    expect(() => knapsackByValueSums([{ cost: 1, value: 1.5 }], 3)).toThrow(/positive integers/);
  });

  it("with unit values, ascending cost and the DP agree on 200 random pools", () => {
    let state = 12345;
    const next = () => {
      state = (state * 1103515245 + 12345) % 2147483648;
      return state / 2147483648;
    };
    for (let trial = 0; trial < 200; trial++) {
      const n = 1 + Math.floor(next() * 25);
      const costs = Array.from({ length: n }, () => Math.floor(next() * 1000));
      const budget = Math.floor(next() * 8000);
      const dp = knapsackByValueSums(
        costs.map((cost) => ({ cost, value: 1 })),
        budget,
      );
      expect(knapsackUnitValues(costs, budget)).toBe(dp);
    }
  });
});

describe("the random baseline", () => {
  it("is exact for 7 units: the mean over all 5040 orders, equal to the expectation counted by subsets", () => {
    // Issue 30, item 4: 7 units used to be sampled (1,000 permutations, seed 0) and came out 2.6
    // standard errors from the exact value; every pool of at most 9 units is now run in all n! orders.
    const pool = [300, 900, 200, 700, 400, 1000, 600].map((c, i) => unit(`u${i}`, c, i % 3 !== 1));
    const B = 1500;
    const baseline = randomBaseline(pool, B, { seed: 0 });
    expect(baseline.method).toBe("exact");
    expect(baseline.orders).toBe(5040); // 7!
    let sum = 0;
    let orders = 0;
    const permute = (rest: ScoredUnit[], prefix: ScoredUnit[]) => {
      if (rest.length === 0) {
        sum += executeAdvisory(prefix, B).value;
        orders++;
        return;
      }
      for (const [i, u] of rest.entries())
        permute([...rest.slice(0, i), ...rest.slice(i + 1)], [...prefix, u]);
    };
    permute(pool, []);
    expect(orders).toBe(5040);
    expect(baseline.value).toBeCloseTo(sum / orders, 12);
    expect(baseline.value).toBeCloseTo(bySubsets(pool, B), 12);
    // The seed plays no part in an exact baseline.
    expect(randomBaseline(pool, B, { seed: 8 }).value).toBe(baseline.value);
  });

  it("is exact up to 9 units (9! = 362,880 orders), sampled from 10 on, reproducibly per seed", () => {
    const costs = [300, 900, 200, 700, 400, 1000, 600, 800, 500, 250];
    const pool = costs.map((c, i) => unit(`u${i}`, c, i % 3 !== 1));
    const B = 2500;
    const nine = randomBaseline(pool.slice(0, 9), B);
    expect([nine.method, nine.orders]).toEqual(["exact", 362_880]);
    expect(nine.value).toBeCloseTo(bySubsets(pool.slice(0, 9), B), 10);
    const a = randomBaseline(pool, B, { seed: 7 });
    expect([a.method, a.orders, a.seed]).toEqual(["sampled", 1000, 7]);
    expect(randomBaseline(pool, B, { seed: 7 }).value).toBe(a.value);
    expect(randomBaseline(pool, B, { seed: 8 }).value).not.toBe(a.value);
    expect(randomBaseline(pool, B, { seed: 7, permutations: 50 }).orders).toBe(50);
    // a mean of 1000 draws of a value in [0, 7]: its standard error is at most 3.5 / sqrt(1000) ~ 0.11
    expect(Math.abs(a.value - bySubsets(pool, B))).toBeLessThan(0.45);
  });

  it("makes eta undefined at alpha = 1.0: every order fits, so V_random = V_oracle", () => {
    const pool = [unit("a", 100, true), unit("b", 300, false), unit("c", 200, true), unit("d", 50, true)];
    const B = budgetFor(pool, 1.0); // floor(1.0 * (100 + 300 + 200 + 50)) = 650
    expect(B).toBe(650);
    const s = scorePlan(pool, [{ unit: pool[0]!, tokens: 100 }], B);
    expect(s.vOracle).toBe(3);
    expect(s.vRandom).toBe(3);
    expect(Number.isNaN(s.etaU)).toBe(true);
    expect(Number.isNaN(s.etaE)).toBe(true);
    // left out of the mean, and counted: eta values 0.5 and NaN -> mean 0.5, 1 excluded
    expect(meanDefined([0.5, s.etaU])).toEqual({ mean: 0.5, excluded: 1 });
    expect(efficiency(2, 1, 3)).toBe(0.5); // (2 - 1) / (3 - 1)
  });

  it("budgets B = floor(alpha * sum c_i)", () => {
    const pool = [unit("1", 500, true), unit("2", 2500, false), unit("3", 1001, true)];
    // sum = 500 + 2500 + 1001 = 4001; 0.25 * 4001 = 1000.25 -> 1000; 0.75 * 4001 = 3000.75 -> 3000
    expect(budgetFor(pool, 0.25)).toBe(1000);
    expect(budgetFor(pool, 0.75)).toBe(3000);
  });
});

describe("regret, detection and waste", () => {
  it("regret is 0 when V_oracle is 0", () => {
    expect(regret(0, 0)).toBe(0);
    expect(regret(3, 4)).toBe(0.25); // (4 - 3) / 4
  });

  it("at r = 0 there is no unsolvable unit: D is undefined and W = 0", () => {
    const plan = [
      { id: "a", tokens: 100 },
      { id: "b", tokens: 300 },
    ];
    expect(detection([], ["a", "b"])).toBeNull();
    expect(waste(plan, [])).toBe(0);
  });

  it("at r = 1 the optimal (empty) plan gives D = 1 and W = 0; planning them all gives D = 0, W = 1", () => {
    const all = ["x", "y", "z"];
    expect(detection(all, [])).toBe(1);
    expect(waste([], all)).toBe(0);
    const planned = [
      { id: "x", tokens: 100 },
      { id: "y", tokens: 300 },
    ];
    expect(detection(all, ["x", "y"])).toBeCloseTo(1 / 3, 12); // z left out: 1 of 3
    expect(waste(planned, all)).toBe(1); // (100 + 300) / 400
  });

  it("W is the share of allocated tokens that went to unsolvable units", () => {
    // W: 300 of 100 + 300 + 600 = 1000 tokens -> 0.3; D: of {y, w}, w is left out and y planned -> 1 / 2
    const plan = [
      { id: "a", tokens: 100 },
      { id: "y", tokens: 300 },
      { id: "b", tokens: 600 },
    ];
    expect(waste(plan, ["y", "w"])).toBe(0.3);
    expect(detection(["y", "w"], ["a", "y", "b"])).toBe(0.5);
  });
});

describe("regime E with an over-budget plan", () => {
  it("runs in order until the budget runs out: the last unit gets only what is left", () => {
    // B = 1000; plan a (600, needs 500, correct), b (600, needs 350, correct), c (200, correct).
    // a: limit 600, 500 <= 600 -> +1, left 400; b: limit min(600, 400) = 400, 350 <= 400 -> +1, left 0,
    // cut short -> stops; c never runs. V_E = 2.
    const a = unit("a", 500, true);
    const b = unit("b", 350, true);
    const c = unit("c", 10, true);
    const run = executeEnforced(
      [
        { unit: a, tokens: 600 },
        { unit: b, tokens: 600 },
        { unit: c, tokens: 200 },
      ],
      1000,
    );
    expect(run).toEqual({ value: 2, solved: ["a", "b"], truncated: "b" });
  });
});
