// Number and string comparison at the edges: the 1e-4 bound, absolute vs relative, -0, NaN, 1e12.
import { describe, expect, it } from "vitest";
import { Tolerance } from "../src/task/index.ts";
import { leavesMatch, normaliseString, numbersMatch } from "../src/verify/index.ts";

const defaults = Tolerance.parse({});

describe("numbersMatch with the default tolerance (abs 1e-4, rel 1e-12)", () => {
  it("declares the documented defaults", () => {
    expect(defaults).toEqual({ abs: 1e-4, rel: 1e-12 });
  });

  it("passes just inside and exactly on the 1e-4 bound, fails just outside", () => {
    expect(numbersMatch(1.00009, 1, defaults)).toBe(true);
    expect(numbersMatch(1.0001, 1, defaults)).toBe(true);
    expect(numbersMatch(1.00010001, 1, defaults)).toBe(false);
    expect(numbersMatch(0.99989999, 1, defaults)).toBe(false);
  });

  it("counts decimal text exactly on the bound as inside despite binary rounding", () => {
    // 2.0001 - 2 is 1.00000000000211e-4 in doubles: the rounding slack keeps the bound inclusive.
    expect(2.0001 - 2 > 1e-4).toBe(true);
    expect(numbersMatch(2.0001, 2, defaults)).toBe(true);
    expect(0.1 - 0.0999 > 1e-4).toBe(true);
    expect(numbersMatch(0.0999, 0.1, defaults)).toBe(true);
    expect(numbersMatch(2.00010001, 2, defaults)).toBe(false);
    expect(numbersMatch(0.09989999, 0.1, defaults)).toBe(false);
  });

  it("treats a cent as a difference at money magnitudes (the absolute bound applies below 1e8)", () => {
    expect(numbersMatch(1234567.89, 1234567.88, defaults)).toBe(false);
    expect(numbersMatch(99_999_999.99, 99_999_999.98, defaults)).toBe(false);
  });

  it("lets the relative bound apply above abs/rel = 1e8", () => {
    // at 1e9 the bound is max(1e-4, 1e-12 * 1e9) = 1e-3
    expect(numbersMatch(1e9 + 0.0009, 1e9, defaults)).toBe(true);
    expect(numbersMatch(1e9 + 0.002, 1e9, defaults)).toBe(false);
  });

  it("handles 1e12 magnitudes, where 1e-4 is finer than a double can resolve", () => {
    const next = 1e12 + 1e-4; // rounds to 1e12 + 1.220703125e-4
    expect(next - 1e12).toBeGreaterThan(1e-4);
    expect(numbersMatch(next, 1e12, defaults)).toBe(true);
    expect(numbersMatch(1e12 + 0.9, 1e12, defaults)).toBe(true);
    expect(numbersMatch(1e12 + 1.5, 1e12, defaults)).toBe(false);
    expect(numbersMatch(-1e12 - 0.5, -1e12, defaults)).toBe(true);
  });

  it("treats -0 as 0", () => {
    expect(numbersMatch(-0, 0, defaults)).toBe(true);
    expect(numbersMatch(0, -0, defaults)).toBe(true);
    expect(numbersMatch(-0, 1e-4, defaults)).toBe(true);
    expect(numbersMatch(-0, 2e-4, defaults)).toBe(false);
  });

  it("never matches NaN, not even NaN; infinities only match themselves", () => {
    expect(numbersMatch(Number.NaN, Number.NaN, defaults)).toBe(false);
    expect(numbersMatch(Number.NaN, 0, defaults)).toBe(false);
    expect(numbersMatch(0, Number.NaN, defaults)).toBe(false);
    expect(numbersMatch(Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY, defaults)).toBe(true);
    expect(numbersMatch(Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, defaults)).toBe(false);
    expect(numbersMatch(1e308, Number.POSITIVE_INFINITY, defaults)).toBe(false);
  });
});

describe("numbersMatch with declared tolerances", () => {
  it("relative only: scales with the expected value, not the actual", () => {
    const rel = { abs: 0, rel: 1e-4 };
    expect(numbersMatch(1_000_100, 1_000_000, rel)).toBe(true);
    expect(numbersMatch(1_000_101, 1_000_000, rel)).toBe(false);
    expect(numbersMatch(0.00010001, 0.0001, rel)).toBe(true);
    expect(numbersMatch(0.000101, 0.0001, rel)).toBe(false);
    expect(numbersMatch(1e-9, 0, rel)).toBe(false);
    expect(numbersMatch(0, 0, rel)).toBe(true);
  });

  it("absolute only: the same bound at every magnitude", () => {
    const abs = { abs: 0.005, rel: 0 };
    expect(numbersMatch(10.004, 10, abs)).toBe(true);
    expect(numbersMatch(10.006, 10, abs)).toBe(false);
    expect(numbersMatch(1e6 + 0.004, 1e6, abs)).toBe(true);
    expect(numbersMatch(1e6 + 0.006, 1e6, abs)).toBe(false);
  });

  it("the larger of the two bounds applies", () => {
    const both = { abs: 0.01, rel: 0.001 };
    expect(numbersMatch(1.009, 1, both)).toBe(true); // abs 0.01 > rel 0.001
    expect(numbersMatch(100.09, 100, both)).toBe(true); // rel 0.1 > abs 0.01
    expect(numbersMatch(100.11, 100, both)).toBe(false);
  });
});

describe("strings", () => {
  it("compare exactly unless normalisation is declared", () => {
    const rule = { tolerance: defaults, normalise: [] };
    expect(leavesMatch("A-100", "A-100", rule)).toBe(true);
    expect(leavesMatch("A-100 ", "A-100", rule)).toBe(false);
    expect(leavesMatch("1", 1, rule)).toBe(false);
  });

  it("normalise in the fixed order nfkc, collapse-whitespace, trim, lowercase", () => {
    const all = ["lowercase", "trim", "collapse-whitespace", "nfkc"] as const;
    expect(normaliseString("  Ｈｅｌｌｏ \t\n  World ", all)).toBe("hello world");
    expect(normaliseString("  A  B ", ["trim"])).toBe("A  B");
    expect(normaliseString("  A  B ", ["collapse-whitespace"])).toBe(" A B ");
    expect(normaliseString("ﬁ", ["nfkc"])).toBe("fi");
  });
});
