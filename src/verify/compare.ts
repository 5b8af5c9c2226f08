// Compares two tables value by value, and measures how far an output agrees with a candidate answer.
import { clip, type Leaf, leavesMatch, showLeaf } from "./leaf.ts";
import type { Table } from "./table.ts";

export interface TableComparison {
  /** Values compared: every column of every row present on either side. */
  compared: number;
  /** Values that differ (a row present on one side only counts all its columns). */
  differing: number;
  /** Rows with at least one differing value. */
  differingRows: number;
  /** The first differing row ids, expected rows first, in table order. */
  sample: string[];
}

/**
 * Calls `visit` for every row id on either side, with its row number in each table (-1 where the
 * table lacks it): the first table's rows first, then the second's extras.
 */
function eachRow(a: Table, b: Table, visit: (id: string, ra: number, rb: number) => void) {
  let shared = 0;
  for (const [id, ra] of a.index) {
    const rb = b.index.get(id);
    if (rb !== undefined) shared++;
    visit(id, ra, rb ?? -1);
  }
  if (shared === b.index.size) return;
  for (const [id, rb] of b.index) if (!a.index.has(id)) visit(id, -1, rb);
}

/** The leaf of column c at row number r (-1: no such row). */
function at(table: Table, c: number, r: number): Leaf | undefined {
  return r < 0 ? undefined : table.values[c]![r];
}

export function compareTables(expected: Table, actual: Table, keep = 20): TableComparison {
  const result: TableComparison = { compared: 0, differing: 0, differingRows: 0, sample: [] };
  const columns = expected.columns;
  eachRow(expected, actual, (id, e, a) => {
    let rowDiffers = false;
    for (let c = 0; c < columns.length; c++) {
      result.compared++;
      if (!leavesMatch(at(actual, c, a), at(expected, c, e), columns[c]!)) {
        result.differing++;
        rowDiffers = true;
      }
    }
    if (rowDiffers) {
      result.differingRows++;
      if (result.sample.length < keep) result.sample.push(id);
    }
  });
  return result;
}

export interface Agreement {
  /** Values where the candidate's answer differs from the reference answer. */
  discriminating: number;
  /** Of those, the values where the output matches the candidate. */
  agreeing: number;
}

/**
 * How far `actual` follows `candidate` where the candidate departs from `reference`: only the values
 * that tell the two answers apart count, so a shared, correct value is evidence for neither.
 */
export function agreement(reference: Table, candidate: Table, actual: Table): Agreement {
  const result: Agreement = { discriminating: 0, agreeing: 0 };
  const columns = reference.columns;
  eachRow(reference, candidate, (id, r, c) => {
    const a = actual.index.get(id) ?? -1;
    for (let k = 0; k < columns.length; k++) {
      const expected = at(candidate, k, c);
      if (leavesMatch(expected, at(reference, k, r), columns[k]!)) continue;
      result.discriminating++;
      if (leavesMatch(at(actual, k, a), expected, columns[k]!)) result.agreeing++;
    }
  });
  return result;
}

/** One line per row: `label: col=value, col=value`; used on both sides of a diff. */
export function rowLine(table: Table, id: string): string | undefined {
  const r = table.index.get(id);
  if (r === undefined) return undefined;
  const label = clip(table.label(id), 200);
  if (table.kind === "leaves") return `${label}: ${showLeaf(at(table, 0, r))}`;
  return `${label}: ${table.columns.map((c, i) => `${c.name}=${showLeaf(at(table, i, r))}`).join(", ")}`;
}

/** The first differing value of a row, in words. */
export function describeFirstDifference(expected: Table, actual: Table, id: string): string {
  const e = expected.index.get(id);
  const a = actual.index.get(id);
  if (a === undefined) return `${clip(expected.label(id), 200)}: missing`;
  if (e === undefined) return `${clip(actual.label(id), 200)}: not expected`;
  const c = expected.columns.findIndex((col, i) => !leavesMatch(at(actual, i, a), at(expected, i, e), col));
  const column = expected.kind === "leaves" ? "" : ` ${expected.columns[c]?.name}`;
  return `${clip(expected.label(id), 200)}${column}: expected ${showLeaf(at(expected, c, e))}, got ${showLeaf(at(actual, c, a))}`;
}
