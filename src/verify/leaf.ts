// Leaf comparison: numbers within a tolerance, strings after declared normalisation, the rest exactly.
import type { StringNormalisation, Tolerance } from "../task/index.ts";

/** An empty array or object in a JSON document: a value of its own, so `[]` never equals "absent". */
export const EMPTY_ARRAY: unique symbol = Symbol("[]");
export const EMPTY_OBJECT: unique symbol = Symbol("{}");

/** One comparable value: a CSV cell, a JSON leaf, a whole text. */
export type Leaf = string | number | boolean | null | typeof EMPTY_ARRAY | typeof EMPTY_OBJECT;

/** How the values of one column (or of a whole JSON document) are compared. */
export interface LeafRule {
  tolerance: Tolerance;
  normalise: readonly StringNormalisation[];
}

/** Slack in units of double rounding, so decimal text exactly on the bound (0.1 vs 0.1001) passes. */
const ROUNDING_SLACK = 4 * Number.EPSILON;

/**
 * |actual - expected| <= max(abs, rel * |expected|) + 4 eps * max(|actual|, |expected|).
 * NaN matches nothing (not even NaN); infinities match only themselves; -0 equals 0.
 */
export function numbersMatch(actual: number, expected: number, tolerance: Tolerance): boolean {
  if (Number.isNaN(actual) || Number.isNaN(expected)) return false;
  if (!Number.isFinite(actual) || !Number.isFinite(expected)) return actual === expected;
  const bound = Math.max(tolerance.abs, tolerance.rel * Math.abs(expected));
  const slack = ROUNDING_SLACK * Math.max(Math.abs(actual), Math.abs(expected));
  return Math.abs(actual - expected) <= bound + slack;
}

const ORDER: readonly StringNormalisation[] = ["nfkc", "collapse-whitespace", "trim", "lowercase"];

/** Applies the declared steps in the fixed order nfkc, collapse-whitespace, trim, lowercase. */
export function normaliseString(text: string, steps: readonly StringNormalisation[]): string {
  if (steps.length === 0) return text;
  let out = text;
  for (const step of ORDER) {
    if (!steps.includes(step)) continue;
    if (step === "nfkc") out = out.normalize("NFKC");
    else if (step === "collapse-whitespace") out = out.replace(/\s+/g, " ");
    else if (step === "trim") out = out.trim();
    else out = out.toLowerCase();
  }
  return out;
}

/** Strings are expected to be normalised already (tables normalise when they are built). */
export function leavesMatch(actual: Leaf | undefined, expected: Leaf | undefined, rule: LeafRule): boolean {
  if (typeof actual === "number" && typeof expected === "number") {
    return numbersMatch(actual, expected, rule.tolerance);
  }
  return actual === expected;
}

/** Text cut to `max` characters, marking the cut: messages stay readable whatever the agent wrote. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** A leaf as it reads in a diff or a message (long strings clipped to 200 characters). */
export function showLeaf(leaf: Leaf | undefined): string {
  if (leaf === undefined) return "(absent)";
  if (leaf === EMPTY_ARRAY) return "[]";
  if (leaf === EMPTY_OBJECT) return "{}";
  if (typeof leaf === "number") return Object.is(leaf, -0) ? "-0" : String(leaf);
  if (typeof leaf === "string") return JSON.stringify(clip(leaf, 200));
  return String(leaf);
}
