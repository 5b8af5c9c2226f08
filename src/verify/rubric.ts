// Rubric scoring: each named criterion is a deterministic check; R = product, partial score = mean.

import type { CriterionResult } from "../model/index.ts";
import type { Criterion } from "./contract.ts";

/** Runs one criterion; a thrown error or a non-boolean result is a failed criterion with the reason. */
export function runCriterion(
  name: string,
  criterion: Criterion<unknown, unknown>,
  actual: unknown,
  expected: unknown,
): CriterionResult {
  try {
    const result = criterion.check(actual, expected);
    if (typeof result === "boolean") return { name, passed: result };
    if (typeof result === "object" && result !== null && typeof result.passed === "boolean") {
      return result.detail === undefined
        ? { name, passed: result.passed }
        : { name, passed: result.passed, detail: result.detail };
    }
    return { name, passed: false, detail: "the check returned neither a boolean nor { passed }" };
  } catch (err) {
    return { name, passed: false, detail: `the check threw: ${(err as Error).message}` };
  }
}

/** R = prod v_k (1 only when every criterion passes; 0 without criteria); score = sum v_k / K. */
export function rewardAndScore(criteria: readonly CriterionResult[]): { reward: number; score: number } {
  if (criteria.length === 0) return { reward: 0, score: 0 };
  const passed = criteria.filter((c) => c.passed).length;
  return { reward: passed === criteria.length ? 1 : 0, score: passed / criteria.length };
}
