// Sequential screening's operating characteristics (issue 30 item 13): bench/operating.ts computes
// them exactly from the shipped clause rule, and docs/calibrate.md carries its output verbatim.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { operating, operatingTable } from "../bench/operating.ts";
import { parseRequirement, type Requirement } from "../src/calibrate/index.ts";

const ZERO = parseRequirement("= 0") as Requirement;
const AT_LEAST_60 = parseRequirement(">= 0.6") as Requirement;

describe("operating characteristics of sequential screening", () => {
  it("agrees with the binomial arithmetic where it is simple", () => {
    // "= 0" at p = 0.1: met only by 14 fails in a row, 0.9^14 = 0.22877; any pass ends it as not met.
    const tenth = operating(ZERO, 0.1);
    expect(tenth.met).toBeCloseTo(0.9 ** 14, 12);
    expect(tenth.notMet).toBeCloseTo(1 - 0.9 ** 14, 12);
    expect(tenth.undecided).toBe(0);
    // At p = 0 every cell takes exactly 14 trials and is met.
    expect(operating(ZERO, 0)).toEqual({ met: 1, notMet: 0, undecided: 0, trials: 14 });
    // ">= 0.6" at p = 1: each pass adds ln(0.75/0.45) = 0.5108; ln(19) = 2.944 needs 6 passes (5 give 2.554).
    expect(operating(AT_LEAST_60, 1)).toEqual({ met: 1, notMet: 0, undecided: 0, trials: 6 });
    for (const p of [0.3, 0.6, 0.9]) {
      const o = operating(AT_LEAST_60, p);
      expect(o.met + o.notMet + o.undecided).toBeCloseTo(1, 12);
    }
  });

  it("is the table docs/calibrate.md shows, so the docs cannot drift from the rule", () => {
    const doc = readFileSync(new URL("../docs/calibrate.md", import.meta.url), "utf8");
    const shown = doc.split("<!-- operating:start -->\n")[1]?.split("\n<!-- operating:end -->")[0];
    expect(shown).toBe(operatingTable());
    // The figures at the edges of the indifference zone, cap 20.
    expect(shown).toContain("| >= 0.6 | 0.75 | 73.6% | 2.7% | 23.6% | 13.2 |");
    expect(shown).toContain("| >= 0.6 | 0.45 | 3.2% | 74.4% | 22.4% | 12.8 |");
  });
});
