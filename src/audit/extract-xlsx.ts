// Spreadsheets (xlsx): sheet names, and for every cell its value, its text as Excel displays it
// (its number format through numfmt: dates, fractions, scientific, sections), its formula and its
// note, laid out as one line per row so a cell's row is its context and row 1 its header. The zip
// is read with caps (xlsx-zip.ts), the XML parts streamed through a SAX parser (xlsx-parts.ts).
import { format, getFormatFromId, isDateFormat } from "numfmt";
import { type AuditDocument, floorIndex } from "./document.ts";
import { isAsciiText } from "./normalise.ts";
import {
  numberFormats,
  type RawCell,
  sharedStrings,
  sheetCells,
  sheetNotes,
  workbook,
} from "./xlsx-parts.ts";
import { openZip, XLSX_CAPS, type ZipCaps } from "./xlsx-zip.ts";

interface Entry {
  start: number;
  sheet: string;
  address: string;
  row: number;
  col: number;
  part: string;
  text: string;
}

/** Days between Excel's 1900 and 1904 date systems: a 1904 workbook's serial + 1462 is the 1900 one. */
const DAYS_1904 = 1462;

/**
 * The text a number shows under a number format code, as Excel renders it (numfmt); undefined for
 * General (the value itself is shown) or a code numfmt cannot read.
 */
export function formatNumber(value: number, code: string | undefined, date1904 = false): string | undefined {
  if (!code || code === "General") return undefined;
  try {
    const serial = date1904 && isDateFormat(code) ? value + DAYS_1904 : value;
    return format(code, serial, { throws: true, dateErrorThrows: true });
  } catch {
    return undefined;
  }
}

interface Book {
  strings: string[];
  styles: number[];
  custom: Map<number, string>;
  date1904: boolean;
}

/** The cell's value as stored: a number's digits, a string, TRUE/FALSE, an error code. */
function plain(c: RawCell, book: Book): string | undefined {
  if (c.type === "s") return c.value === undefined ? undefined : book.strings[Number(c.value)];
  if (c.type === "inlineStr") return c.inline;
  if (c.type === "b") return c.value === undefined ? undefined : c.value === "1" ? "TRUE" : "FALSE";
  return c.value;
}

function formatCode(c: RawCell, book: Book): string | undefined {
  const id = book.styles[c.style] ?? 0;
  return book.custom.get(id) ?? getFormatFromId(id);
}

function cellEntries(
  c: RawCell,
  book: Book,
  note: string | undefined,
  push: (e: Omit<Entry, "start">) => void,
): void {
  const base = { address: c.address, row: c.row, col: c.col };
  const value = plain(c, book);
  if (value !== undefined) push({ ...base, sheet: "", part: "value", text: value });
  const numeric = c.type === "n" && value !== undefined && value !== "" ? Number(value) : Number.NaN;
  const formatted = Number.isFinite(numeric)
    ? formatNumber(numeric, formatCode(c, book), book.date1904)
    : undefined;
  if (formatted !== undefined && formatted !== value)
    push({ ...base, sheet: "", part: "formatted text", text: formatted });
  if (c.formula) push({ ...base, sheet: "", part: "formula", text: `=${c.formula}` });
  if (note) push({ ...base, sheet: "", part: "note", text: note });
}

/** Every entry of the workbook in order: per sheet its name, then its cells row by row. */
async function workbookEntries(
  bytes: Buffer,
  file: string,
  caps: ZipCaps,
  push: (e: Omit<Entry, "start">) => void,
): Promise<void> {
  const zip = await openZip(bytes, file, caps);
  try {
    const { sheets, date1904 } = await workbook(zip, file);
    const { styles, custom } = await numberFormats(zip, file);
    const book: Book = { strings: await sharedStrings(zip, file), styles, custom, date1904 };
    for (const sheet of sheets) {
      push({ sheet: sheet.name, address: "", row: 0, col: 0, part: "sheet name", text: sheet.name });
      const notes = await sheetNotes(zip, sheet.part, file);
      await sheetCells(zip, sheet.part, file, (c) =>
        cellEntries(c, book, notes.get(c.address), (e) => push({ ...e, sheet: sheet.name })),
      );
    }
  } finally {
    zip.close();
  }
}

/**
 * Reads a workbook into one document; throws with a clear message naming the file when it is not an
 * xlsx, is malformed, or is a zip bomb (an entry over `caps`).
 */
export async function xlsxDocument(
  file: string,
  bytes: Buffer,
  caps: ZipCaps = XLSX_CAPS,
): Promise<AuditDocument> {
  const entries: Entry[] = [];
  const parts: string[] = [];
  let length = 0;
  let lastRow = -1;
  let lastSheet = "";
  try {
    await workbookEntries(bytes, file, caps, (e) => {
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
  } catch (err) {
    const message = (err as Error).message;
    throw new Error(
      message.startsWith(file)
        ? `cannot read ${message}`
        : `cannot read ${file} as an xlsx workbook: ${message}`,
    );
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
