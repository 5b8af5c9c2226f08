// Compares two tables value by value, and measures how far an output agrees with a candidate answer.
import { type Leaf, leavesMatch, showLeaf } from "./leaf.ts";
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

/** Calls `visit` for every row id on either side: the first table's rows first, then the second's extras. */
function eachRow(
  a: Table,
  b: Table,
  visit: (id: string, ra: Leaf[] | undefined, rb: Leaf[] | undefined) => void,
) {
  let shared = 0;
  for (const [id, row] of a.rows) {
    const other = b.rows.get(id);
    if (other !== undefined) shared++;
    visit(id, row, other);
  }
  if (shared === b.rows.size) return;
  for (const [id, row] of b.rows) if (!a.rows.has(id)) visit(id, undefined, row);
}

export function compareTables(expected: Table, actual: Table, keep = 20): TableComparison {
  const result: TableComparison = { compared: 0, differing: 0, differingRows: 0, sample: [] };
  const columns = expected.columns;
  eachRow(expected, actual, (id, e, a) => {
    let rowDiffers = false;
    for (let c = 0; c < columns.length; c++) {
      result.compared++;
      if (!leavesMatch(a?.[c], e?.[c], columns[c]!)) {
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
    const a = actual.rows.get(id);
    for (let k = 0; k < columns.length; k++) {
      if (leavesMatch(c?.[k], r?.[k], columns[k]!)) continue;
      result.discriminating++;
      if (leavesMatch(a?.[k], c?.[k], columns[k]!)) result.agreeing++;
    }
  });
  return result;
}

/** One line per row: `label: col=value, col=value`; used on both sides of a diff. */
export function rowLine(table: Table, id: string): string | undefined {
  const row = table.rows.get(id);
  if (!row) return undefined;
  if (table.kind === "leaves") return `${table.label(id)}: ${showLeaf(row[0])}`;
  return `${table.label(id)}: ${table.columns.map((c, i) => `${c.name}=${showLeaf(row[i])}`).join(", ")}`;
}

/** The first differing value of a row, in words. */
export function describeFirstDifference(expected: Table, actual: Table, id: string): string {
  const e = expected.rows.get(id);
  const a = actual.rows.get(id);
  if (!a) return `${expected.label(id)}: missing`;
  if (!e) return `${actual.label(id)}: not expected`;
  const c = expected.columns.findIndex((col, i) => !leavesMatch(a[i], e[i], col));
  const column = expected.kind === "leaves" ? "" : ` ${expected.columns[c]?.name}`;
  return `${expected.label(id)}${column}: expected ${showLeaf(e[c])}, got ${showLeaf(a[c])}`;
}
