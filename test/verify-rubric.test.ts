// Rubric scoring: the reward is the product of the criteria, the partial score their mean.
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
});

describe("runCriterion", () => {
  it("takes a boolean or { passed, detail }", () => {
    expect(runCriterion("t", { name: "t", check: () => true }, "x", null)).toEqual({
      name: "t",
      passed: true,
    });
    expect(
      runCriterion("t", { name: "t", check: () => ({ passed: false, detail: "why" }) }, "x", null),
    ).toEqual({
      name: "t",
      passed: false,
      detail: "why",
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
    expect(throwing).toEqual({ name: "t", passed: false, detail: "the check threw: boom" });
    const odd = runCriterion("t", { name: "t", check: () => "yes" as unknown as boolean }, "", null);
    expect(odd.passed).toBe(false);
  });
});
