// What extraction hands to the matchers: a text per file part, how to locate an offset in the
// original file, and the structural context (column header, JSON key path) of an offset.

export interface Location {
  /** 1-based line and column (UTF-16 code units) in the file, when the file is text. */
  line?: number;
  column?: number;
  endLine?: number;
  endColumn?: number;
  /** Spreadsheet cell, e.g. "Rates!B3". */
  cell?: string;
  /** Which part was matched: "file name", "formula", "formatted text", "JSON key", ... */
  part?: string;
}

export interface AuditDocument {
  /** Project-relative POSIX path of the file. */
  file: string;
  text: string;
  /** The text is pure ASCII (lets normalisation skip its work). */
  ascii: boolean;
  /** Field delimiter of a table: never a thousands separator, and context stays within the row. */
  delimiter?: string;
  /** Context windows stop at line ends (tables, JSON Lines, spreadsheets). */
  lineContext: boolean;
  /** Original location of a document span. */
  locate(start: number, end: number): Location;
  /** Structural context of an offset without row numbers: a column header, a JSON key path. */
  structure(offset: number): string | undefined;
  /**
   * The text structural contexts are drawn from, when it is less than the whole text (a table's
   * header row; nothing for prose): a keyword absent from it is in no structural context.
   */
  structureText?(): string;
  /**
   * Whether the text at an offset can be part of a structural context, when they are drawn from
   * the whole text (no structureText): a JSON document's keys can, its values cannot. Asked for
   * increasing offsets. Absent: any offset can.
   */
  inStructure?(offset: number): boolean;
}

/** The line starts of the text scanned last (the WebAssembly pass counts them as it reads). */
let known: { text: string; starts: Int32Array } | undefined;

export function knowLineStarts(text: string, starts: Int32Array): void {
  known = { text, starts };
}

/** Sorted offsets of line starts, for offset -> line/column. */
export function lineStarts(text: string): Int32Array {
  if (known !== undefined && known.text === text) return known.starts;
  let lines = 1;
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) lines++;
  const starts = new Int32Array(lines);
  let n = 1;
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) starts[n++] = i + 1;
  return starts;
}

/** Index of the last element <= value. */
export function floorIndex(sorted: ArrayLike<number>, value: number): number {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (sorted[mid]! <= value) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** A locator for plain text: offsets (optionally through a map to file offsets) -> line and column. */
export function textLocator(fileText: string, map?: Int32Array): (start: number, end: number) => Location {
  let starts: Int32Array | undefined;
  const at = (offset: number) => {
    starts ??= lineStarts(fileText);
    const o = map ? map[Math.min(offset, map.length - 1)]! : offset;
    const line = floorIndex(starts, o);
    return { line: line + 1, column: o - starts[line]! + 1 };
  };
  return (start, end) => {
    const a = at(start);
    const b = at(Math.max(start, end));
    return { line: a.line, column: a.column, endLine: b.line, endColumn: b.column };
  };
}

/** Splits one line of a delimited table into cell spans, honouring double quotes. */
export function cellSpans(line: string, delimiter: string): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '"') quoted = !quoted;
    else if (c === delimiter && !quoted) {
      spans.push([start, i]);
      start = i + 1;
    }
  }
  spans.push([start, line.length]);
  return spans;
}

export function unquote(cell: string): string {
  const t = cell.trim();
  return t.startsWith('"') && t.endsWith('"') && t.length >= 2 ? t.slice(1, -1).replace(/""/g, '"') : t;
}
