// Spreadsheets (xlsx, through exceljs): sheet names, and for every cell its value, its formatted text
// and its formula, laid out as one line per row so a cell's row is its context and row 1 its header.
import type { CellValue, Worksheet } from "exceljs";
import { type AuditDocument, floorIndex } from "./document.ts";
import { isAsciiText } from "./normalise.ts";

interface Entry {
  start: number;
  sheet: string;
  address: string;
  row: number;
  col: number;
  part: string;
  text: string;
}

/** The text a number shows under a number format (percent, fixed decimals, thousands). */
export function formatNumber(value: number, numFmt: string | undefined): string | undefined {
  if (!numFmt || numFmt === "General") return undefined;
  const section = numFmt.split(";")[0]!.replace(/"[^"]*"|\\.|\[[^\]]*\]/g, "");
  const decimals = /\.(0+)/.exec(section)?.[1]?.length ?? 0;
  if (section.includes("%")) return `${(value * 100).toFixed(decimals)}%`;
  if (!/[0#]/.test(section)) return undefined;
  const fixed = value.toFixed(decimals);
  if (!section.includes(",")) return fixed;
  const [int, frac] = fixed.split(".");
  const grouped = int!.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return frac === undefined ? grouped : `${grouped}.${frac}`;
}

function plain(value: CellValue): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === "number") return String(value);
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return value ? "TRUE" : "FALSE";
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  if ("richText" in value) return value.richText.map((r) => r.text).join("");
  if ("hyperlink" in value) return `${value.text} ${value.hyperlink}`;
  if ("error" in value) return value.error;
  if ("result" in value) return value.result === undefined ? undefined : plain(value.result as CellValue);
  return undefined;
}

function noteText(note: unknown): string | undefined {
  if (typeof note === "string") return note;
  if (note && typeof note === "object" && "texts" in note) {
    return ((note as { texts?: Array<{ text: string }> }).texts ?? []).map((t) => t.text).join("");
  }
  return undefined;
}

function sheetEntries(sheet: Worksheet, push: (e: Omit<Entry, "start">) => void): void {
  push({ sheet: sheet.name, address: "", row: 0, col: 0, part: "sheet name", text: sheet.name });
  sheet.eachRow({ includeEmpty: false }, (row, rowNumber) => {
    row.eachCell({ includeEmpty: false }, (cell, col) => {
      const base = { sheet: sheet.name, address: cell.address, row: rowNumber, col };
      const value = plain(cell.value);
      if (value !== undefined) push({ ...base, part: "value", text: value });
      const numeric =
        typeof cell.value === "number"
          ? cell.value
          : typeof cell.result === "number"
            ? cell.result
            : undefined;
      const formatted = numeric === undefined ? undefined : formatNumber(numeric, cell.numFmt);
      if (formatted !== undefined && formatted !== value)
        push({ ...base, part: "formatted text", text: formatted });
      if (cell.formula) push({ ...base, part: "formula", text: `=${cell.formula}` });
      const note = noteText(cell.note);
      if (note) push({ ...base, part: "note", text: note });
    });
  });
}

/** Reads a workbook into one document; throws with a clear message when the file is not an xlsx. */
export async function xlsxDocument(file: string, bytes: Buffer): Promise<AuditDocument> {
  const { default: ExcelJS } = await import("exceljs");
  const workbook = new ExcelJS.Workbook();
  try {
    await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
  } catch (err) {
    throw new Error(`cannot read ${file} as an xlsx workbook: ${(err as Error).message}`);
  }
  const entries: Entry[] = [];
  const parts: string[] = [];
  let length = 0;
  let lastRow = -1;
  let lastSheet = "";
  for (const sheet of workbook.worksheets) {
    sheetEntries(sheet, (e) => {
      // One line per row: a new row or sheet starts a new line, cells of a row are tab-separated.
      const sep = length === 0 ? "" : e.row === lastRow && e.sheet === lastSheet ? "\t" : "\n";
      const text = e.text.replace(/[\t\n\r]+/g, " ");
      parts.push(sep, text);
      length += sep.length;
      entries.push({ ...e, start: length, text });
      length += text.length;
      lastRow = e.row;
      lastSheet = e.sheet;
    });
  }
  const text = parts.join("");
  const starts = Int32Array.from(entries.map((e) => e.start));
  const entryAt = (offset: number) => entries[floorIndex(starts, offset)];
  return {
    file,
    text,
    ascii: isAsciiText(text),
    delimiter: "\t",
    lineContext: true,
    locate: (start) => {
      const e = entryAt(start);
      if (!e) return {};
      return e.address ? { cell: `${e.sheet}!${e.address}`, part: e.part } : { cell: e.sheet, part: e.part };
    },
    structure: (offset) => {
      const e = entryAt(offset);
      if (!e) return undefined;
      if (!e.address) return `sheet ${e.sheet}`;
      const header = entries.find(
        (h) => h.sheet === e.sheet && h.row === 1 && h.col === e.col && h.part === "value",
      );
      return `${e.sheet}: ${header && header !== e ? header.text : `column ${e.col}`} (${e.part})`;
    },
  };
}
