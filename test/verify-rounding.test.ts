// The rounding helpers for verifier authors, on values worked out by hand (ties that binary floating
// point cannot hold exactly included).
import { describe, expect, it } from "vitest";
import { roundHalfAway, roundHalfEven, roundToStep } from "../src/verify/index.ts";

describe("roundHalfAway", () => {
  it("rounds decimal ties away from zero, even those binary holds just below the tie", () => {
    // 2.345 is 2.34499999999999997... in binary: still the tie 234.5 cents -> 235.
    expect([2.345, -2.345, 0.125, 1.005, 9.2288, -0.004].map((v) => roundHalfAway(v, 2))).toEqual([
      2.35, -2.35, 0.13, 1.01, 9.23, 0,
    ]);
    expect(roundHalfAway(2.5)).toBe(3);
    expect(roundHalfAway(-2.5)).toBe(-3);
  });
});

describe("roundHalfEven", () => {
  it("rounds ties to the even neighbour and everything else to the nearest", () => {
    // 0.125 -> 12.5 cents -> 12 (even); 0.135 -> 13.5 -> 14 (even); 0.1351 is no tie -> 14.
    expect([0.125, 0.135, 0.1351, -0.125, 2.675].map((v) => roundHalfEven(v, 2))).toEqual([
      0.12, 0.14, 0.14, -0.12, 2.68,
    ]);
    expect([0.5, 1.5, 2.5, -0.5].map((v) => roundHalfEven(v))).toEqual([0, 2, 2, 0]);
  });
});

describe("roundToStep", () => {
  it("picks a multiple of the step in the chosen direction", () => {
    // 447 minutes to 6: 447 = 74*6 + 3, the tie -> 75*6 = 450 (half-up), 444 (down), 450 (up).
    expect(roundToStep(447, 6, "half-up")).toBe(450);
    expect(roundToStep(447, 6, "down")).toBe(444);
    expect(roundToStep(446, 6, "half-up")).toBe(444);
    // -3 to 6: -0.5 steps: half-up -> 0, half-away -> -6, half-even -> 0.
    expect(roundToStep(-3, 6, "half-up")).toBe(0);
    expect(roundToStep(-3, 6, "half-away")).toBe(-6);
    expect(roundToStep(-3, 6, "half-even")).toBe(0);
    // 0.37 to quarters: 1.48 quarters -> up 2 (0.5), down 1 (0.25), nearest 1 (0.25).
    expect(roundToStep(0.37, 0.25, "up")).toBe(0.5);
    expect(roundToStep(0.37, 0.25, "down")).toBe(0.25);
    expect(roundToStep(0.37, 0.25, "half-even")).toBe(0.25);
    // 0.3 to 0.1 stays 0.3 (not 0.30000000000000004).
    expect(roundToStep(0.3, 0.1, "half-up")).toBe(0.3);
  });

  it("rejects a step that is not positive", () => {
    expect(() => roundToStep(1, 0, "up")).toThrow(/step must be positive, got 0/);
  });
});
