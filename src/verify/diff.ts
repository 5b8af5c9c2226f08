// A readable expected-vs-actual diff for a verdict: a unified diff of the first differing rows, capped.
import { createTwoFilesPatch } from "diff";
import { rowLine, type TableComparison } from "./compare.ts";
import type { Table } from "./table.ts";

/** Characters of diff kept per verdict. */
export const DIFF_CAP = 4000;
/** Characters of a whole text fed to the line differ. */
const TEXT_CAP = 64 * 1024;

export function tableDiff(path: string, expected: Table, actual: Table, comparison: TableComparison): string {
  const lines = (table: Table) =>
    comparison.sample
      .map((id) => rowLine(table, id))
      .filter((l) => l !== undefined)
      .join("\n");
  const patch = createTwoFilesPatch(
    `expected/${path}`,
    `actual/${path}`,
    `${lines(expected)}\n`,
    `${lines(actual)}\n`,
    undefined,
    undefined,
    { context: 0 },
  );
  const more = comparison.differingRows - comparison.sample.length;
  return more > 0 ? `${patch}... ${more} more differing row(s) not shown\n` : patch;
}

/** A line diff of two texts (whole text outputs), bounded in input size and edit length. */
export function textDiff(path: string, expected: string, actual: string): string {
  const patch = createTwoFilesPatch(
    `expected/${path}`,
    `actual/${path}`,
    expected.slice(0, TEXT_CAP),
    actual.slice(0, TEXT_CAP),
    undefined,
    undefined,
    { context: 2, maxEditLength: 2000 },
  );
  return patch ?? `the texts of ${path} differ in too many lines for a line diff\n`;
}

/** Joins per-output diffs and caps the total, marking the cut. */
export function capDiff(parts: string[]): string | undefined {
  const joined = parts.join("");
  if (joined.length === 0) return undefined;
  if (joined.length <= DIFF_CAP) return joined;
  return `${joined.slice(0, DIFF_CAP)}\n... diff truncated at ${DIFF_CAP} of ${joined.length} characters\n`;
}
