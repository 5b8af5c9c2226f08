// The one shape every comparison works on: rows of typed leaves by row id, with a rule per column.
// CSV rows become rows (by key or by position), a JSON document becomes one row per leaf pointer.
// Stored by column (an all-number column is an unboxed double array), rows found through an index.

import { csvProblemText, readCsv } from "../common/index.ts";
import type { CsvColumn, CsvOutput, JsonOutput, TextOutput } from "../task/index.ts";
import { clip, EMPTY_ARRAY, EMPTY_OBJECT, type Leaf, type LeafRule, normaliseString } from "./leaf.ts";

export interface Column extends LeafRule {
  name: string;
}

export interface Table {
  /** `rows`: CSV rows with named columns; `leaves`: one value per row id (JSON pointers, a text). */
  kind: "rows" | "leaves";
  columns: Column[];
  /** Row id -> row number, in row order. */
  index: Map<string, number>;
  /** values[c][row]: the leaf of column c in a row. */
  values: Leaf[][];
  /** How a row id reads in messages: `assembly=A-100`, `row 3`, `/papers[id=P1]/score`. */
  label(rowId: string): string;
}

export type Built<T> = { ok: true; value: T } | { ok: false; reason: string };

const KEY_SEP = "\u001f";
const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
/** A Map, not an object: an agent's cell "constructor" or "__proto__" must find nothing (issue 40). */
const BOOLEAN: ReadonlyMap<string, boolean> = new Map([
  ["true", true],
  ["false", false],
  ["1", true],
  ["0", false],
]);

function ruleOf(output: CsvOutput, column: CsvColumn): Column {
  return {
    name: column.name,
    tolerance: column.tolerance ?? output.compare.tolerance,
    normalise: column.normalise ?? output.compare.normalise,
  };
}

/** A CSV cell read as its column's type; undefined when it cannot be (cellProblem says why). */
function cellFromText(text: string, column: CsvColumn, rule: Column): Leaf | undefined {
  if (column.type === "string") return normaliseString(text, rule.normalise);
  const trimmed = text.trim();
  if (column.type === "boolean") return BOOLEAN.get(trimmed.toLowerCase());
  if (!NUMBER.test(trimmed)) return undefined;
  const value = Number(trimmed);
  if (!Number.isFinite(value) || (column.type === "integer" && !Number.isInteger(value))) return undefined;
  return value;
}

/** A value from a reference solver, checked against its column's type; undefined when it is not one. */
function cellFromValue(value: unknown, column: CsvColumn, rule: Column): Leaf | undefined {
  if (column.type === "string")
    return typeof value === "string" ? normaliseString(value, rule.normalise) : undefined;
  if (column.type === "boolean") return typeof value === "boolean" ? value : undefined;
  if (typeof value !== "number" || !Number.isFinite(value)) return undefined;
  return column.type === "integer" && !Number.isInteger(value) ? undefined : value;
}

const WHAT: Record<CsvColumn["type"], string> = {
  string: "a string",
  boolean: "a boolean (true/false/1/0)",
  number: "a finite number",
  integer: "an integer",
};

/** Why a cell (text from a file, or a solver's value) is not of its column's type. */
function cellProblem(value: unknown, column: CsvColumn): string {
  return `${JSON.stringify(value) ?? String(value)} is not ${WHAT[column.type]}`;
}

function keyPart(leaf: Leaf): string {
  return typeof leaf === "number" ? String(leaf === 0 ? 0 : leaf) : String(leaf);
}

function labelKey(output: CsvOutput, id: string): string {
  const parts = id.split(KEY_SEP);
  return (output.key ?? []).map((k, i) => `${k}=${parts[i]}`).join(", ");
}

/** Collects typed CSV rows (leaves in declared column order) into a table, by key or by position. */
class CsvTableBuilder {
  private readonly keyIdx: number[];
  private readonly valueIdx: number[];
  private readonly index = new Map<string, number>();
  private readonly values: Leaf[][];
  private readonly typed: Leaf[][] | undefined;

  constructor(
    private readonly output: CsvOutput,
    keepRows: boolean,
  ) {
    this.keyIdx = (output.key ?? []).map((k) => output.columns.findIndex((c) => c.name === k));
    this.valueIdx = output.columns.map((_, i) => i).filter((i) => !this.keyIdx.includes(i));
    this.values = (this.keyIdx.length > 0 ? this.valueIdx : output.columns).map(() => []);
    this.typed = keepRows ? [] : undefined;
  }

  /** Adds a row; returns the problem of a duplicate key. */
  add(leaves: Leaf[]): string | undefined {
    const { keyIdx, valueIdx } = this;
    let id: string;
    const row = this.index.size;
    if (keyIdx.length === 0) id = String(row);
    else if (keyIdx.length === 1) id = keyPart(leaves[keyIdx[0]!]!);
    else id = keyIdx.map((i) => keyPart(leaves[i]!)).join(KEY_SEP);
    if (this.index.has(id)) return `duplicate key ${labelKey(this.output, id)}`;
    this.index.set(id, row);
    const { values } = this;
    if (keyIdx.length > 0) for (let v = 0; v < valueIdx.length; v++) values[v]!.push(leaves[valueIdx[v]!]!);
    else for (let c = 0; c < leaves.length; c++) values[c]!.push(leaves[c]!);
    this.typed?.push(leaves);
    return undefined;
  }

  finish(): { table: Table; rows: Leaf[][] } {
    const { output } = this;
    const rules = output.columns.map((c) => ruleOf(output, c));
    const keyed = this.keyIdx.length > 0;
    return {
      table: {
        kind: "rows",
        columns: keyed ? this.valueIdx.map((i) => rules[i]!) : rules,
        index: this.index,
        values: this.values,
        label: keyed ? (id) => labelKey(output, id) : (id) => `row ${Number(id) + 1}`,
      },
      rows: this.typed ?? [],
    };
  }
}

/**
 * The agent's CSV text: the header must hold exactly the declared columns (any order), every cell
 * is typed per its column. `keepRows`: also return the typed rows (for rubric criteria).
 */
export function tableFromCsv(
  output: CsvOutput,
  text: string,
  keepRows = false,
): Built<{ table: Table; rows: Leaf[][] }> {
  const declared = output.columns.map((c) => c.name);
  const rules = output.columns.map((c) => ruleOf(output, c));
  const builder = new CsvTableBuilder(output, keepRows);
  const scratch = keepRows ? undefined : new Array<Leaf>(output.columns.length);
  let positions: number[] = [];
  const problem = readCsv(text, {
    header(header) {
      // Linear in the header's width: an agent's header may have a million columns.
      const columns = new Set<string>();
      let duplicate: string | undefined;
      for (const h of header) {
        if (columns.has(h)) duplicate ??= h;
        columns.add(h);
      }
      const wanted = new Set(declared);
      const missing = declared.filter((d) => !columns.has(d));
      const unexpected = header.filter((h) => !wanted.has(h));
      if (duplicate !== undefined || missing.length > 0 || unexpected.length > 0) {
        const problems = [
          missing.length > 0 ? `missing: ${missing.join(", ")}` : "",
          unexpected.length > 0 ? `unexpected: ${unexpected.join(", ")}` : "",
          duplicate !== undefined ? `duplicate: ${duplicate}` : "",
        ].filter(Boolean);
        const shown =
          header.length > 50
            ? `${header.slice(0, 50).join(",")},... (${header.length} columns)`
            : header.join(",");
        return `the columns are ${clip(shown, 2000)}; expected ${declared.join(",")} (${clip(problems.join("; "), 2000)})`;
      }
      positions = output.columns.map((c) => header.indexOf(c.name));
      return undefined;
    },
    record(fields) {
      // The builder copies the leaves into its columns, so without kept rows one scratch array serves.
      const leaves = scratch ?? new Array<Leaf>(positions.length);
      for (let i = 0; i < positions.length; i++) {
        const text = fields[positions[i]!]!;
        const cell = cellFromText(text, output.columns[i]!, rules[i]!);
        if (cell === undefined) return `${output.columns[i]!.name}: ${cellProblem(text, output.columns[i]!)}`;
        leaves[i] = cell;
      }
      return builder.add(leaves);
    },
  });
  return problem ? { ok: false, reason: csvProblemText(problem) } : { ok: true, value: builder.finish() };
}

/** A reference solver's rows (objects keyed by column), checked like the agent's. */
export function tableFromRows(
  output: CsvOutput,
  value: unknown,
  keepRows = false,
): Built<{ table: Table; rows: Leaf[][] }> {
  if (!Array.isArray(value)) return { ok: false, reason: "expected an array of row objects" };
  const rules = output.columns.map((c) => ruleOf(output, c));
  const builder = new CsvTableBuilder(output, keepRows);
  for (let r = 0; r < value.length; r++) {
    const row = value[r] as Record<string, unknown> | null;
    if (typeof row !== "object" || row === null) return { ok: false, reason: `row ${r + 1}: not an object` };
    const leaves = new Array<Leaf>(output.columns.length);
    for (let i = 0; i < output.columns.length; i++) {
      const column = output.columns[i]!;
      const value = Object.hasOwn(row, column.name) ? row[column.name] : undefined;
      const cell = cellFromValue(value, column, rules[i]!);
      if (cell === undefined) {
        return { ok: false, reason: `row ${r + 1}: ${column.name}: ${cellProblem(value, column)}` };
      }
      leaves[i] = cell;
    }
    const problem = builder.add(leaves);
    if (problem) return { ok: false, reason: `row ${r + 1}: ${problem}` };
  }
  return { ok: true, value: builder.finish() };
}

function escapeSegment(segment: string): string {
  return segment.replaceAll("~", "~0").replaceAll("/", "~1");
}

function matchesPattern(segments: readonly string[], pattern: readonly string[]): boolean {
  return segments.length === pattern.length && pattern.every((p, i) => p === "*" || p === segments[i]);
}

/** A JSON document flattened to one row per leaf pointer; keyed arrays use `[field=value]` segments. */
export function tableFromJson(output: JsonOutput, document: unknown): Built<Table> {
  const rule: Column = {
    name: "value",
    tolerance: output.compare.tolerance,
    normalise: output.compare.normalise,
  };
  const patterns = Object.entries(output.compare.keyedArrays).map(
    ([pointer, fields]) => [pointer === "" ? [] : pointer.slice(1).split("/"), fields] as const,
  );
  const index = new Map<string, number>();
  const leaves: Leaf[] = [];
  const put = (pointer: string, leaf: Leaf) => {
    index.set(pointer, leaves.length);
    leaves.push(leaf);
  };
  const walk = (value: unknown, segments: string[]): string | undefined => {
    const pointer = segments.map((s) => `/${s}`).join("");
    if (Array.isArray(value)) {
      if (value.length === 0) put(pointer, EMPTY_ARRAY);
      const fields = patterns.find(([p]) => matchesPattern(segments, p))?.[1];
      const seen = new Set<string>();
      for (let i = 0; i < value.length; i++) {
        let segment = String(i);
        if (fields) {
          const element = value[i] as Record<string, unknown> | null;
          if (typeof element !== "object" || element === null || Array.isArray(element)) {
            return `${pointer}/${i}: a keyed array element must be an object`;
          }
          const parts: string[] = [];
          for (const field of fields) {
            const key = Object.hasOwn(element, field) ? element[field] : undefined;
            if (key === null || typeof key === "object" || key === undefined) {
              return `${pointer}/${i}: key field "${field}" is missing or not a plain value`;
            }
            const text = typeof key === "string" ? normaliseString(key, rule.normalise) : String(key);
            parts.push(`${field}=${text}`);
          }
          segment = escapeSegment(`[${parts.join(",")}]`);
          if (seen.has(segment)) return `${pointer}/${i}: duplicate key ${parts.join(", ")}`;
          seen.add(segment);
        }
        const problem = walk(value[i], [...segments, segment]);
        if (problem) return problem;
      }
      return undefined;
    }
    if (typeof value === "object" && value !== null) {
      const entries = Object.entries(value);
      if (entries.length === 0) put(pointer, EMPTY_OBJECT);
      for (const [key, child] of entries) {
        const problem = walk(child, [...segments, escapeSegment(key)]);
        if (problem) return problem;
      }
      return undefined;
    }
    if (typeof value === "string") put(pointer, normaliseString(value, rule.normalise));
    else if (typeof value === "number" || typeof value === "boolean" || value === null) put(pointer, value);
    else return `${pointer || "(root)"}: ${typeof value} is not a JSON value`;
    return undefined;
  };
  const problem = walk(document, []);
  if (problem) return { ok: false, reason: problem };
  return {
    ok: true,
    value: { kind: "leaves", columns: [rule], index, values: [leaves], label: (id) => id || "(root)" },
  };
}

/** A whole text as one leaf, after the output's normalisation. */
export function tableFromText(output: TextOutput, text: string): Table {
  const rule: Column = { name: "text", tolerance: { abs: 0, rel: 0 }, normalise: output.compare.normalise };
  return {
    kind: "leaves",
    columns: [rule],
    index: new Map([["text", 0]]),
    values: [[normaliseString(text, rule.normalise)]],
    label: () => "text",
  };
}

/** The leaf of column `c` in row `id`, or undefined when the table has no such row. */
export function leafAt(table: Table, id: string, c: number): Leaf | undefined {
  const row = table.index.get(id);
  return row === undefined ? undefined : table.values[c]![row];
}
