// Rubric scoring: each named criterion is a deterministic check; R = product, partial score = the
// weighted mean of the criteria.

import type { CriterionResult } from "../record/index.ts";
import type { CodeCriterion } from "./contract.ts";
import { throwSite } from "./throw-site.ts";

/**
 * Runs one criterion; a thrown error or a non-boolean result is a failed criterion with the reason (a
 * throw with its line in `file`, the verifier's project-relative path, when the stack passes there).
 * The result carries the criterion's weight (1 when it declares none).
 */
export function runCriterion(
  name: string,
  criterion: CodeCriterion<unknown, unknown>,
  actual: unknown,
  expected: unknown,
  file?: string,
): CriterionResult {
  const weight = criterion.weight ?? 1;
  try {
    const result = criterion.check(actual, expected);
    if (typeof result === "boolean") return { name, passed: result, weight };
    if (typeof result === "object" && result !== null && typeof result.passed === "boolean") {
      return result.detail === undefined
        ? { name, passed: result.passed, weight }
        : { name, passed: result.passed, detail: result.detail, weight };
    }
    return { name, passed: false, detail: "the check returned neither a boolean nor { passed }", weight };
  } catch (err) {
    const site = file === undefined ? undefined : throwSite(err, file);
    const at = site === undefined ? "" : ` at ${site}`;
    return { name, passed: false, detail: `the check threw${at}: ${(err as Error).message}`, weight };
  }
}

/**
 * R = prod v_k (1 only when every criterion passes; 0 without criteria); score = sum w_k v_k / sum w_k,
 * w_k the criterion's weight (1 when it carries none: every criterion counts alike unless weighted).
 */
export function rewardAndScore(criteria: readonly CriterionResult[]): { reward: number; score: number } {
  if (criteria.length === 0) return { reward: 0, score: 0 };
  const weightOf = (c: CriterionResult) => c.weight ?? 1;
  const total = criteria.reduce((sum, c) => sum + weightOf(c), 0);
  const passed = criteria.reduce((sum, c) => sum + (c.passed ? weightOf(c) : 0), 0);
  return { reward: criteria.every((c) => c.passed) ? 1 : 0, score: passed / total };
}

/** "2 of 5 criteria failed: a, b". */
export function failedReason(criteria: readonly CriterionResult[]): string {
  const failed = criteria.filter((c) => !c.passed);
  return `${failed.length} of ${criteria.length} criteria failed: ${failed.map((c) => c.name).join(", ")}`;
}
