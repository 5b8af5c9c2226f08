// How two raw answers of a solver differ: the number of leaf values (csv cells, json leaves, texts)
// that changed, numbers compared at the method's 1e-4.
import { isDeepStrictEqual } from "node:util";
import { numbersMatch } from "../verify/index.ts";

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Numbers closer than this are the same value (the comparison tolerance of the method, 1e-4). */
const SAME_NUMBER = { abs: 1e-4, rel: 0 };

/** Leaves of a raw answer by their path: `output/x.csv/3/total`. */
function leaves(value: unknown, at: string, into: Map<string, unknown>): Map<string, unknown> {
  const children = Array.isArray(value) || isRecord(value) ? Object.entries(value) : [];
  if (children.length === 0) into.set(at, value);
  for (const [key, child] of children) leaves(child, `${at}/${key}`, into);
  return into;
}

function sameLeaf(a: unknown, b: unknown): boolean {
  if (typeof a === "number" && typeof b === "number") return numbersMatch(a, b, SAME_NUMBER);
  return isDeepStrictEqual(a, b);
}

/** How many leaves differ between two answers (a leaf present in one only counts once). */
export function changedValues(a: Record<string, unknown>, b: Record<string, unknown>): number {
  const left = leaves(a, "", new Map());
  const right = leaves(b, "", new Map());
  let changed = 0;
  for (const [key, value] of left) if (!right.has(key) || !sameLeaf(value, right.get(key))) changed++;
  for (const key of right.keys()) if (!left.has(key)) changed++;
  return changed;
}
