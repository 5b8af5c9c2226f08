// Statistics and the retain rule: Wilson bounds against published values, clause verdicts with
// the one-trial borderline rule, decisions with their reasons, and the SPRT of sequential screening.
import { describe, expect, it } from "vitest";
import {
  type ClauseInput,
  decide,
  fixedClause,
  hypotheses,
  parseRequirement,
  type Requirement,
  sequentialClause,
  sprt,
} from "../src/calibrate/index.ts";
import { wilson } from "../src/common/index.ts";

describe("Wilson 95% interval", () => {
  // Published values: Newcombe (1998) Table I / Brown, Cai & DasGupta (2001); the same figures as
  // scipy.stats.binomtest(k, n).proportion_ci(method="wilson").
  it.each([
    [0, 5, 0, 0.434482],
    [3, 5, 0.230724, 0.882379],
    [5, 5, 0.565518, 1],
    [51, 75, 0.567889, 0.77457],
    [17, 75, 0.146614, 0.333355],
    [0, 75, 0, 0.048724],
  ])("%i/%i -> [%f, %f]", (k, n, lo, hi) => {
    const i = wilson(k, n);
    expect(i.lo).toBeCloseTo(lo, 5);
    expect(i.hi).toBeCloseTo(hi, 5);
  });

  it("agrees with the score-test inversion computed by bisection", () => {
    // The Wilson interval is {p : |k/n - p| <= z sqrt(p(1-p)/n)}: find its ends independently.
    const z = 1.959963984540054;
    const inside = (k: number, n: number, p: number) =>
      Math.abs(k / n - p) <= z * Math.sqrt((p * (1 - p)) / n);
    const edge = (k: number, n: number, from: number, to: number) => {
      let [a, b] = [from, to]; // inside(a) !== inside(b)
      for (let i = 0; i < 80; i++) {
        const m = (a + b) / 2;
        if (inside(k, n, m) === inside(k, n, a)) a = m;
        else b = m;
      }
      return (a + b) / 2;
    };
    for (const [k, n] of [
      [1, 5],
      [2, 7],
      [9, 20],
      [19, 20],
    ] as const) {
      const i = wilson(k, n);
      expect(i.lo).toBeCloseTo(edge(k, n, 1e-12, k / n), 9);
      expect(i.hi).toBeCloseTo(edge(k, n, k / n, 1 - 1e-12), 9);
    }
  });

  it("is [0, 1] without runs and refuses impossible counts", () => {
    expect(wilson(0, 0)).toEqual({ lo: 0, hi: 1 });
    expect(() => wilson(6, 5)).toThrow(/passes <= runs/);
    expect(() => wilson(-1, 5)).toThrow(RangeError);
  });
});

describe("requirements", () => {
  it("parses the written forms", () => {
    expect(parseRequirement(">= 0.6")).toEqual({ op: ">=", threshold: 0.6 });
    expect(parseRequirement("<=40%")).toEqual({ op: "<=", threshold: 0.4 });
    expect(parseRequirement("= 0")).toEqual({ op: "<=", threshold: 0 });
    expect(parseRequirement("= 1")).toEqual({ op: ">=", threshold: 1 });
  });
  it("explains bad ones", () => {
    expect(parseRequirement("> 0.6")).toMatch(/expected ">= t"/);
    expect(parseRequirement("= 0.5")).toMatch(/only meaningful for 0 or 1/);
    expect(parseRequirement(">= 1.5")).toMatch(/between 0 and 1/);
  });
});

const AT_LEAST_60: Requirement = { op: ">=", threshold: 0.6 };
const AT_MOST_40: Requirement = { op: "<=", threshold: 0.4 };
const ZERO: Requirement = { op: "<=", threshold: 0 };

function clause(
  cell: string,
  requirement: Requirement,
  passes: number,
  runs = 5,
  control = false,
): ClauseInput {
  return { cell, requirement, control, passes, runs, excluded: 0 };
}

describe("fixed-n clauses (the paper's rule)", () => {
  it.each([
    // p(frontier,+A) >= 0.6
    [AT_LEAST_60, 5, "met", false],
    [AT_LEAST_60, 4, "met", false],
    [AT_LEAST_60, 3, "met", true], // 3/5 = 0.6 exactly: one fewer pass misses
    [AT_LEAST_60, 2, "not-met", true], // one more pass would meet
    [AT_LEAST_60, 1, "not-met", false],
    // p(mid,+A) <= 0.4
    [AT_MOST_40, 0, "met", false],
    [AT_MOST_40, 1, "met", false],
    [AT_MOST_40, 2, "met", true],
    [AT_MOST_40, 3, "not-met", true],
    [AT_MOST_40, 4, "not-met", false],
    // p(frontier,-A) = 0: met only at 0/n; one pass shows p > 0, so no miss is borderline
    [ZERO, 0, "met", false],
    [ZERO, 1, "not-met", false],
    [ZERO, 2, "not-met", false],
  ] as const)("%j with %i/5 -> %s (borderline %s)", (req, passes, verdict, borderline) => {
    const r = fixedClause(clause("cell", req, passes));
    expect(r.verdict).toBe(verdict);
    expect(r.borderline).toBe(borderline);
  });

  it("words the reason with the tally and the clause", () => {
    expect(fixedClause(clause("frontier+A", AT_LEAST_60, 3)).reason).toBe(
      "frontier+A passed 3/5 (60%): meets p(frontier+A) >= 0.6 by one trial (2/5 would not)",
    );
    expect(fixedClause(clause("mid+A", AT_MOST_40, 4)).reason).toBe(
      "mid+A passed 4/5 (80%): misses p(mid+A) <= 0.4",
    );
  });

  it("cannot decide a cell without valid runs", () => {
    const r = fixedClause({ ...clause("frontier+A", AT_LEAST_60, 0, 0), excluded: 5 });
    expect(r.verdict).toBe("undecided");
    expect(r.borderline).toBe(false);
    expect(r.reason).toMatch(/no valid trial \(all 5 trial\(s\) excluded/);
  });
});

describe("decisions", () => {
  const paper = (fa: number, fna: number, ma: number, control?: number) => {
    const clauses = [
      fixedClause(clause("frontier+A", AT_LEAST_60, fa)),
      fixedClause(clause("frontier-A", ZERO, fna)),
      fixedClause(clause("mid+A", AT_MOST_40, ma)),
    ];
    if (control !== undefined) clauses.push(fixedClause(clause("control", ZERO, control, 5, true)));
    return decide(clauses, { pending: null, strict: false, resume: "kgate calibrate --resume r1" });
  };

  it("retains a clearly gated task and says why", () => {
    const d = paper(5, 0, 1, 0);
    expect(d.decision).toBe("retain");
    expect(d.reasons.at(-1)).toMatch(
      /control passed 0\/5 .* tracks the artefact's content, not its presence/,
    );
  });
  it("revises when a clause is missed by one trial", () => {
    expect(paper(2, 0, 0).decision).toBe("revise");
    expect(paper(5, 0, 3).reasons).toEqual([
      expect.stringMatching(/^borderline: mid\+A passed 3\/5 .* misses .* by one trial/),
    ]);
  });
  it("revises when a control passes", () => {
    const d = paper(5, 0, 0, 2);
    expect(d.decision).toBe("revise");
    expect(d.reasons).toEqual([expect.stringMatching(/control passed 2\/5 .* does not track its content/)]);
  });
  it("discards when a clause is clearly missed, whatever else is borderline", () => {
    const d = paper(3, 4, 0);
    expect(d.decision).toBe("discard");
    expect(d.reasons).toEqual([
      "frontier-A passed 4/5 (80%): 4 passes show p(frontier-A) > 0, so it misses p(frontier-A) = 0",
    ]);
  });
  it("waits while planned trials are missing", () => {
    const clauses = [fixedClause(clause("frontier+A", AT_LEAST_60, 4))];
    const ctx = {
      pending: "3 of 15 planned trials have not run yet",
      strict: false,
      resume: "kgate calibrate --resume r1",
    };
    expect(decide(clauses, ctx)).toEqual({
      decision: "incomplete",
      reasons: ["3 of 15 planned trials have not run yet", "resume with  kgate calibrate --resume r1"],
      borderline: [],
    });
  });
});

describe("sequential probability ratio test", () => {
  const s = { alpha: 0.05, beta: 0.05, delta: 0.15, epsilon: 0.02, zeroBound: 0.2 };

  it("sets the indifference zone around an interior threshold", () => {
    expect(hypotheses(AT_LEAST_60, s).met).toBeCloseTo(0.75, 12);
    expect(hypotheses(AT_LEAST_60, s).notMet).toBeCloseTo(0.45, 12);
    expect(hypotheses(AT_MOST_40, s).met).toBeCloseTo(0.25, 12);
  });

  it("decides after as many trials as the likelihood ratio needs", () => {
    // p >= 0.6: each pass adds ln(0.75/0.45) = 0.511, so 5/5 (2.55) is not enough and 6/6 is.
    expect(sprt(AT_LEAST_60, 5, 5, s).verdict).toBe("undecided");
    expect(sprt(AT_LEAST_60, 6, 6, s).verdict).toBe("met");
    expect(sprt(AT_LEAST_60, 0, 4, s).verdict).toBe("not-met");
  });

  it("marks a clause still undecided at the cap as borderline", () => {
    const open = sequentialClause(clause("mid+A", AT_MOST_40, 8, 20), s, 20);
    expect(open.verdict).toBe("undecided");
    expect(open.borderline).toBe(true);
    expect(open.reason).toMatch(/still undecided at the cap of 20 trials/);
    const early = sequentialClause(clause("mid+A", AT_MOST_40, 2, 5), s, 20);
    expect(early.borderline).toBe(false);
    expect(sequentialClause(clause("mid+A", AT_MOST_40, 0, 9), s, 20).reason).toBe(
      "mid+A passed 0/9 (0%): meets p(mid+A) <= 0.4 (SPRT, 95%)",
    );
  });
});
