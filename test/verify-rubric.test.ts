// Rubric scoring: the reward is the product of the criteria, the partial score their weighted mean.
import { describe, expect, it } from "vitest";
import { rewardAndScore, runCriterion } from "../src/verify/index.ts";

const c = (name: string, passed: boolean) => ({ name, passed });

describe("rewardAndScore", () => {
  it("gives reward 1 only when every criterion passes", () => {
    expect(rewardAndScore([c("a", true), c("b", true), c("c", true)])).toEqual({ reward: 1, score: 1 });
  });

  it("gives reward 0 but a partial score when some criteria fail (product vs sum)", () => {
    expect(rewardAndScore([c("a", true), c("b", false), c("c", true), c("d", true)])).toEqual({
      reward: 0,
      score: 0.75,
    });
    expect(rewardAndScore([c("a", false), c("b", false)])).toEqual({ reward: 0, score: 0 });
  });

  it("gives nothing without criteria", () => {
    expect(rewardAndScore([])).toEqual({ reward: 0, score: 0 });
  });

  it("weighs the partial score by each criterion's weight (1 when it carries none); the reward ignores weights", () => {
    // weights 3, 2, 1 (and an unweighted reference criterion, weight 1): the weight-3 criterion
    // fails, so the score is (2 + 1 + 1) / (3 + 2 + 1 + 1) = 4/7 and the reward 0.
    const weighted = [
      { name: "a", passed: false, weight: 3 },
      { name: "b", passed: true, weight: 2 },
      { name: "c", passed: true, weight: 1 },
      c("output/x.csv", true),
    ];
    expect(rewardAndScore(weighted)).toEqual({ reward: 0, score: 4 / 7 });
    // The weight-1 criterion fails instead: (3 + 2 + 1) / 7 = 6/7.
    const light = weighted.map((k) => ({ ...k, passed: k.name !== "c" }));
    expect(rewardAndScore(light)).toEqual({ reward: 0, score: 6 / 7 });
    expect(rewardAndScore(weighted.map((k) => ({ ...k, passed: true })))).toEqual({ reward: 1, score: 1 });
  });
});

describe("runCriterion", () => {
  it("takes a boolean or { passed, detail }", () => {
    expect(runCriterion("t", { name: "t", check: () => true }, "x", null)).toEqual({
      name: "t",
      passed: true,
      weight: 1,
    });
    expect(
      runCriterion("t", { name: "t", check: () => ({ passed: false, detail: "why" }) }, "x", null),
    ).toEqual({
      name: "t",
      passed: false,
      detail: "why",
      weight: 1,
    });
  });

  it("carries the criterion's declared weight into the result", () => {
    expect(runCriterion("t", { name: "t", weight: 3, check: () => false }, "x", null)).toEqual({
      name: "t",
      passed: false,
      weight: 3,
    });
  });

  it("passes actual and expected to the check", () => {
    const check = (a: unknown, e: unknown) => a === "total 12.00" && e === 12;
    expect(runCriterion("t", { name: "t", check }, "total 12.00", 12).passed).toBe(true);
    expect(runCriterion("t", { name: "t", check }, "total 12.00", 13).passed).toBe(false);
  });

  it("turns a throwing check or a wrong result type into a failed criterion", () => {
    const throwing = runCriterion(
      "t",
      {
        name: "t",
        check: () => {
          throw new Error("boom");
        },
      },
      "",
      null,
    );
    expect(throwing).toEqual({ name: "t", passed: false, detail: "the check threw: boom", weight: 1 });
    const odd = runCriterion("t", { name: "t", check: () => "yes" as unknown as boolean }, "", null);
    expect(odd.passed).toBe(false);
  });
});
