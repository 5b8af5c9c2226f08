// The monitoring metrics on hand-computed cases: a 2x2 table, undefined deltas, profiles at their
// thresholds, correlations, split-half with Spearman-Brown, and the bootstrap interval.
import { describe, expect, it } from "vitest";
import { averageRanks, pearson, spearman } from "../src/common/index.ts";
import {
  bootstrapDelta,
  classifyProfile,
  type MonitoredResponse,
  meanDefined,
  spearmanBrown,
  splitHalf,
  summariseMonitoring,
} from "../src/monitor/index.ts";

const times = (n: number, r: MonitoredResponse): MonitoredResponse[] => Array.from({ length: n }, () => r);

describe("the 2x2 table", () => {
  // 6 correct: 4 KEEP+BET, 1 KEEP+NO_BET, 1 WITHDRAW+BET; 4 incorrect: 1 KEEP+BET, 2 WITHDRAW+NO_BET,
  // 1 WITHDRAW+BET.
  const responses = [
    ...times(4, { correct: true, keep: "KEEP", bet: "BET" }),
    { correct: true, keep: "KEEP", bet: "NO_BET" } as const,
    { correct: true, keep: "WITHDRAW", bet: "BET" } as const,
    { correct: false, keep: "KEEP", bet: "BET" } as const,
    ...times(2, { correct: false, keep: "WITHDRAW", bet: "NO_BET" }),
    { correct: false, keep: "WITHDRAW", bet: "BET" } as const,
  ];
  const s = summariseMonitoring(responses);

  it("gives the KEEP rates and the withdraw delta in percentage points", () => {
    expect(s.nCorrect).toBe(6);
    expect(s.nIncorrect).toBe(4);
    expect(s.accuracy).toBeCloseTo(0.6, 12); // 6 / 10
    expect(s.kcRate).toBeCloseTo(83.3333333, 6); // 5 kept of 6 correct
    expect(s.kiRate).toBeCloseTo(25, 12); // 1 kept of 4 incorrect
    // P(WITHDRAW | incorrect) - P(WITHDRAW | correct) = 75 - 16.667 = 58.333 = kc - ki
    expect(s.withdrawDelta).toBeCloseTo(58.3333333, 6);
    expect(s.keepRate).toBeCloseTo(60, 12); // 6 KEEP of 10
  });

  it("gives L, K, Fp, TRIN and contradiction", () => {
    expect(s.L).toBeCloseTo(0.25, 12); // KEEP among incorrect: 1 / 4
    expect(s.K).toBeCloseTo(0.5, 12); // BET among incorrect: 2 / 4
    expect(s.Fp).toBeCloseTo(1 / 6, 12); // WITHDRAW among correct: 1 / 6
    expect(s.TRIN).toBeCloseTo(0.6, 12); // max(6 KEEP, 4 WITHDRAW) / 10
    expect(s.contradiction).toBeCloseTo(0.2, 12); // WITHDRAW+BET: 1 correct + 1 incorrect of 10
  });

  it("leaves the delta undefined when a group is empty", () => {
    const allCorrect = summariseMonitoring(times(3, { correct: true, keep: "KEEP", bet: "BET" }));
    expect(allCorrect.kcRate).toBe(100);
    expect(allCorrect.kiRate).toBeNull();
    expect(allCorrect.withdrawDelta).toBeNull();
    expect(allCorrect.L).toBeNull();
    expect(summariseMonitoring([]).accuracy).toBeNull();
  });

  it("keeps unparsed replies out of the rates but counts them", () => {
    const s2 = summariseMonitoring([
      { correct: true, keep: "KEEP", bet: null },
      { correct: true, keep: null, bet: null },
      { correct: false, keep: "WITHDRAW", bet: "NO_BET" },
    ]);
    expect(s2.nCorrect).toBe(2);
    expect(s2.kcRate).toBe(100); // 1 kept of the 1 correct with a reply
    expect(s2.withdrawDelta).toBe(100); // 100 - 0
    expect(s2.nUnparsedKeep).toBe(1);
    expect(s2.contradiction).toBe(0); // only the incorrect one has both replies
  });
});

describe("profiles, in the battery's order", () => {
  // The stated rule (paper §2.6): A if KEEP >= 95; else B if KEEP <= 10 or DECLINE >= 90; else C if
  // delta >= 15. The script's thresholds (leaderboard.py): A needs |delta| < 15 too; B has no DECLINE.
  it.each([
    // keep, delta, decline, stated, script
    [95, 14.99, null, "A", "A"],
    [95, -14.99, null, "A", "A"],
    [95, 15, null, "A", "C"], // stated: KEEP >= 95 is enough; script: |15| is not < 15, and 15 >= 15
    [96, 40, null, "A", "C"],
    [100, -20, null, "A", "unclassified"],
    [96, null, null, "A", "unclassified"], // stated A needs only the KEEP rate
    [94.99, 0, null, "unclassified", "unclassified"],
    [10, 50, null, "B", "B"], // B is tested before C
    [10.01, 15, null, "C", "C"],
    [50, 14.99, null, "unclassified", "unclassified"],
    [50, 20, 90, "B", "C"], // the stated B's alternative: DECLINE >= 90% on T6
    [50, 20, 89.99, "C", "C"],
    [50, null, 95, "B", "unclassified"],
    [96, 0, 95, "A", "A"], // A is tested first
    [5, null, null, "B", "B"],
    [null, null, null, "unclassified", "unclassified"],
  ] as const)(
    "KEEP %s%%, delta %s, DECLINE %s%%: %s stated, %s by the script",
    (keep, delta, decline, stated, script) => {
      const input = { keepRate: keep, delta, declineRate: decline };
      expect(classifyProfile(input)).toBe(stated);
      expect(classifyProfile(input, "stated")).toBe(stated);
      expect(classifyProfile(input, "script")).toBe(script);
    },
  );

  it("averages only defined deltas", () => {
    expect(meanDefined([10, null, 20])).toBe(15);
    expect(meanDefined([null])).toBeNull();
  });
});

describe("correlations and reliability", () => {
  it("Pearson's r by hand", () => {
    // x = 1,2,3 (mean 2), y = 2,4,7 (mean 13/3): sum dxdy = 7/3 + 0 + 8/3 = 5; sum dx2 = 2;
    // sum dy2 = (49 + 1 + 64) / 9 = 114/9; r = 5 / sqrt(2 * 114/9) = 0.993399
    expect(pearson([1, 2, 3], [2, 4, 7])).toBeCloseTo(0.993399, 5);
    expect(pearson([1, 2], [1, 2])).toBeNull();
    expect(pearson([1, 1, 1], [1, 2, 3])).toBeNull();
  });

  it("Spearman's rho on ranks, ties averaged", () => {
    expect(averageRanks([10, 20, 20, 30])).toEqual([1, 2.5, 2.5, 4]);
    expect(spearman([1, 2, 3], [2, 4, 7])).toBeCloseTo(1, 12);
    // x = 1,2,3,4, y ranks = 2,1,4,3: d = -1,1,-1,1, sum d2 = 4; rho = 1 - 6*4/(4*15) = 0.6
    expect(spearman([1, 2, 3, 4], [20, 10, 40, 30])).toBeCloseTo(0.6, 12);
  });

  it("split-half with the Spearman-Brown correction", () => {
    expect(spearmanBrown(0.6)).toBeCloseTo(0.75, 12); // 2 * 0.6 / 1.6
    const half = splitHalf([
      { a: 1, b: 20 },
      { a: 2, b: 10 },
      { a: 3, b: 40 },
      { a: 4, b: 30 },
      { a: null, b: 5 },
    ]);
    // a mean 2.5, b mean 25: dxdy = (-1.5)(-5) + (-0.5)(-15) + (0.5)(15) + (1.5)(5) = 30;
    // sum dx2 = 5, sum dy2 = 500; r = 30 / 50 = 0.6; corrected 0.75
    expect(half.n).toBe(4);
    expect(half.r).toBeCloseTo(0.6, 12);
    expect(half.corrected).toBeCloseTo(0.75, 12);
  });
});

describe("the bootstrap interval of the delta", () => {
  it("is a point when every resample gives the same delta", () => {
    const perfect = [
      ...times(5, { correct: true, keep: "KEEP", bet: "BET" }),
      ...times(3, { correct: false, keep: "WITHDRAW", bet: "NO_BET" }),
    ];
    expect(bootstrapDelta(perfect, { resamples: 200 })).toMatchObject({ low: 100, high: 100 });
  });

  it("spans the possible values of a two-item group", () => {
    // correct always kept (kc = 100); the 2 incorrect, one KEEP and one WITHDRAW, resample to
    // ki = 0, 50, 100 with probabilities 1/4, 1/2, 1/4, so delta is 100, 50 or 0 and the 2.5% and
    // 97.5% quantiles of 2000 resamples are 0 and 100.
    const responses = [
      ...times(4, { correct: true, keep: "KEEP", bet: "BET" }),
      { correct: false, keep: "KEEP", bet: "BET" } as const,
      { correct: false, keep: "WITHDRAW", bet: "NO_BET" } as const,
    ];
    expect(bootstrapDelta(responses)).toMatchObject({ low: 0, high: 100, level: 0.95 });
  });

  it("is null when the delta is undefined", () => {
    expect(bootstrapDelta(times(3, { correct: true, keep: "KEEP", bet: "BET" }))).toBeNull();
  });
});
