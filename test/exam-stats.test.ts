// Exam statistics against values worked out by hand: average ranks, Spearman (with ties), partial
// Spearman (with a collinear control), the value-density overlap and bootstrap intervals.
import { describe, expect, it } from "vitest";
import { averageRanks, spearman } from "../src/common/index.ts";
import {
  bootstrapMean,
  densityOverlap,
  partialSpearman,
  seededRng,
  valueDensity,
} from "../src/exam/index.ts";

describe("spearman", () => {
  it("gives ties the average of their ranks", () => {
    expect(averageRanks([10, 20, 20, 30])).toEqual([1, 2.5, 2.5, 4]);
    expect(averageRanks([5, 5, 5])).toEqual([2, 2, 2]);
  });

  it("matches 1 - 6 sum d^2 / (n (n^2 - 1)) without ties", () => {
    // d = -1, 1, -1, 1, 0: sum d^2 = 4; 1 - 24 / 120 = 0.8
    expect(spearman([1, 2, 3, 4, 5], [2, 1, 4, 3, 5])).toBeCloseTo(0.8, 12);
    expect(spearman([1, 2, 3], [30, 20, 10])).toBeCloseTo(-1, 12);
  });

  it("is the Pearson correlation of average ranks with ties", () => {
    // ranks y = 1, 2.5, 2.5, 4; centred x = -1.5 -0.5 0.5 1.5, y = -1.5 0 0 1.5
    // sxy = 4.5, sxx = 5, syy = 4.5: rho = 4.5 / sqrt(22.5) = sqrt(0.9)
    expect(spearman([1, 2, 3, 4], [1, 2, 2, 3])).toBeCloseTo(Math.sqrt(0.9), 12);
  });

  it("is undefined (null) when a side does not vary or for fewer than 3 units", () => {
    expect(spearman([1, 2, 3], [4, 4, 4])).toBeNull();
    expect(spearman([1, 2], [1, 2])).toBeNull();
  });
});

describe("partialSpearman", () => {
  // z = 1..5 (centred -2 -1 0 1 2, szz 10); x = 2 1 4 3 5 (centred -1 -2 1 0 2, sxx 10); y = 1 3 2 5 4
  // (centred -2 0 -1 2 1, syy 10). sxz = 8, syz = 8, sxy = 3: rxz = ryz = 0.8, rxy = 0.3.
  // partial = (0.3 - 0.8 x 0.8) / sqrt((1 - 0.64)(1 - 0.64)) = -0.34 / 0.36 = -17/18
  const x = [2, 1, 4, 3, 5];
  const y = [1, 3, 2, 5, 4];
  const z = [1, 2, 3, 4, 5];

  it("correlates the residuals of the ranks regressed on the control", () => {
    expect(partialSpearman(x, y, [z])).toBeCloseTo(-17 / 18, 12);
  });

  it("works on ranks: a monotone transform of a variable changes nothing", () => {
    expect(
      partialSpearman(
        x.map((v) => v ** 3),
        y,
        [z.map((v) => 100 * v)],
      ),
    ).toBeCloseTo(-17 / 18, 12);
  });

  it("drops a control collinear with another (position = difficulty rank under an ascending order)", () => {
    expect(partialSpearman(x, y, [z, z.map((v) => 2 * v)])).toBeCloseTo(-17 / 18, 12);
  });

  it("is null when a residual vanishes (value fully explained by the controls)", () => {
    expect(partialSpearman(x, z, [z])).toBeNull();
  });
});

describe("densityOverlap", () => {
  const density = [5, 1, 3, 4, 2]; // top-2 = {0, 3}; top-3 = {0, 3, 2}
  it("is |W intersect top-|W|| / |W|", () => {
    expect(densityOverlap([0, 2, 3], density)).toBe(1);
    expect(densityOverlap([1, 4], density)).toBe(0);
    expect(densityOverlap([0, 1], density)).toBe(0.5);
    expect(densityOverlap([], density)).toBeNull();
  });
  it("computes density as points x accuracy / tokens", () => {
    // 12 x 0.5 / 300 = 0.02
    expect(valueDensity(12, 0.5, 300)).toBeCloseTo(0.02, 12);
    expect(valueDensity(12, 0, 0)).toBe(0);
  });
});

describe("bootstrapMean", () => {
  it("degenerates to the value when every exam agrees", () => {
    const e = bootstrapMean([0.2, 0.2, 0.2], seededRng(1))!;
    expect(e.n).toBe(3);
    for (const v of [e.mean, e.low, e.high]) expect(v).toBeCloseTo(0.2, 12);
  });
  it("spans the resampled means: for 0 and 1, means 0, 1/2, 1 with odds 1/4, 1/2, 1/4", () => {
    // about 500 of 2000 resamples have mean 0 and 500 mean 1: the 2.5% and 97.5% points are 0 and 1
    const e = bootstrapMean([0, 1], seededRng(1))!;
    expect(e).toEqual({ mean: 0.5, low: 0, high: 1, n: 2 });
  });
  it("is seeded, and null for no exams", () => {
    const values = [0.1, 0.5, 0.9, 0.3];
    expect(bootstrapMean(values, seededRng(3))).toEqual(bootstrapMean(values, seededRng(3)));
    expect(bootstrapMean(values, seededRng(3))!.mean).toBeCloseTo(0.45, 12); // (0.1+0.5+0.9+0.3)/4
    expect(bootstrapMean([], seededRng(3))).toBeNull();
  });
});
