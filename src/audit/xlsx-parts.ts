// The parts of an xlsx workbook the audit reads, each streamed through saxes (a strict SAX parser,
// no document tree): the sheet list and date system, relationships, shared strings, the cells'
// number formats, a sheet's cells and its notes.
import path from "node:path/posix";
import { SaxesParser, type SaxesTagPlain } from "saxes";
import type { ZipReader } from "./xlsx-zip.ts";

interface Handlers {
  open?(tag: SaxesTagPlain): void;
  text?(text: string): void;
  close?(name: string): void;
}

/** Streams one part through a SAX parser; a malformed part is an error naming it. */
export async function parsePart(zip: ZipReader, name: string, what: string, h: Handlers): Promise<void> {
  const parser = new SaxesParser();
  parser.on("error", (e) => {
    throw new Error(`${what}: ${name}: ${e.message}`);
  });
  if (h.open) parser.on("opentag", (t) => h.open!(t as SaxesTagPlain));
  if (h.text) {
    parser.on("text", (t) => h.text!(t));
    parser.on("cdata", (t) => h.text!(t));
  }
  if (h.close) parser.on("closetag", (t) => h.close!(t.name));
  await zip.readText(name, (chunk) => {
    parser.write(chunk);
  });
  parser.close();
}

/** Local name of a tag (`x:sheet` and `sheet` alike). */
const local = (name: string) => name.slice(name.indexOf(":") + 1);

export interface SheetRef {
  name: string;
  /** The part, e.g. `xl/worksheets/sheet1.xml`. */
  part: string;
}

/** Relationship id -> target part, resolved against the part that owns the relationships. */
export async function relationships(
  zip: ZipReader,
  owner: string,
  what: string,
): Promise<Map<string, string>> {
  const rels = path.join(path.dirname(owner), "_rels", `${path.basename(owner)}.rels`);
  const out = new Map<string, string>();
  if (!zip.names.has(rels)) return out;
  await parsePart(zip, rels, what, {
    open: (t) => {
      if (local(t.name) !== "Relationship" || t.attributes.TargetMode === "External") return;
      const target = t.attributes.Target ?? "";
      out.set(
        t.attributes.Id ?? "",
        target.startsWith("/") ? target.slice(1) : path.join(path.dirname(owner), target),
      );
    },
  });
  return out;
}

/** The sheets in workbook order, and whether dates count from 1904 (Excel for Mac's old system). */
export async function workbook(
  zip: ZipReader,
  what: string,
): Promise<{ sheets: SheetRef[]; date1904: boolean }> {
  const WORKBOOK = "xl/workbook.xml";
  const rels = await relationships(zip, WORKBOOK, what);
  const sheets: SheetRef[] = [];
  let date1904 = false;
  await parsePart(zip, WORKBOOK, what, {
    open: (t) => {
      const name = local(t.name);
      if (name === "workbookPr") date1904 = ["1", "true"].includes(t.attributes.date1904 ?? "");
      if (name !== "sheet") return;
      const id = Object.entries(t.attributes).find(([k]) => local(k) === "id" && k.includes(":"))?.[1];
      const part = id ? rels.get(id) : undefined;
      if (part && zip.names.has(part)) sheets.push({ name: t.attributes.name ?? part, part });
    },
  });
  return { sheets, date1904 };
}

/** Collects the text of `<t>` elements inside each `item` element, leaving phonetic runs out. */
function itemTexts(item: string, items: string[]): Handlers {
  let current: string[] | null = null;
  let inText = false;
  let phonetic = 0;
  return {
    open: (t) => {
      const n = local(t.name);
      if (n === item) current = [];
      else if (n === "rPh") phonetic += 1;
      else if (n === "t") inText = true;
    },
    text: (s) => {
      if (current && inText && phonetic === 0) current.push(s);
    },
    close: (name) => {
      const n = local(name);
      if (n === "t") inText = false;
      else if (n === "rPh") phonetic -= 1;
      else if (n === item && current) {
        items.push(current.join(""));
        current = null;
      }
    },
  };
}

export async function sharedStrings(zip: ZipReader, what: string): Promise<string[]> {
  const strings: string[] = [];
  const part = "xl/sharedStrings.xml";
  if (zip.names.has(part)) await parsePart(zip, part, what, itemTexts("si", strings));
  return strings;
}

/** Per cell style index (`s`), its number format: the id and the custom codes by id. */
export async function numberFormats(
  zip: ZipReader,
  what: string,
): Promise<{ styles: number[]; custom: Map<number, string> }> {
  const styles: number[] = [];
  const custom = new Map<number, string>();
  const part = "xl/styles.xml";
  if (!zip.names.has(part)) return { styles, custom };
  let inCellXfs = false;
  await parsePart(zip, part, what, {
    open: (t) => {
      const n = local(t.name);
      if (n === "numFmt") custom.set(Number(t.attributes.numFmtId), t.attributes.formatCode ?? "General");
      else if (n === "cellXfs") inCellXfs = true;
      else if (n === "xf" && inCellXfs) styles.push(Number(t.attributes.numFmtId ?? 0));
    },
    close: (name) => {
      if (local(name) === "cellXfs") inCellXfs = false;
    },
  });
  return { styles, custom };
}

export interface RawCell {
  row: number;
  col: number;
  /** `A1` as written. */
  address: string;
  /** The cell type: n (number, the default), s (shared string), str (formula text), inlineStr, b, e. */
  type: string;
  style: number;
  value: string | undefined;
  formula: string | undefined;
  inline: string | undefined;
}

/** Column letters to a 1-based number: A -> 1, Z -> 26, AA -> 27. */
function columnNumber(letters: string): number {
  let n = 0;
  for (const ch of letters) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n;
}

/** The cells of one sheet in document order (rows, then cells). */
export async function sheetCells(
  zip: ZipReader,
  part: string,
  what: string,
  onCell: (c: RawCell) => void,
): Promise<void> {
  let cell: RawCell | null = null;
  let field: "v" | "f" | "t" | null = null;
  let buffer: string[] = [];
  let row = 0;
  let col = 0;
  let phonetic = 0;
  await parsePart(zip, part, what, {
    open: (t) => {
      const n = local(t.name);
      if (n === "row") {
        row = Number(t.attributes.r) || row + 1;
        col = 0;
      } else if (n === "c") {
        const ref = /^([A-Z]+)(\d+)$/.exec(t.attributes.r ?? "");
        col = ref ? columnNumber(ref[1]!) : col + 1;
        const address = ref ? ref[0] : `${String.fromCharCode(64 + Math.min(col, 26))}${row}`;
        cell = {
          row,
          col,
          address,
          type: t.attributes.t ?? "n",
          style: Number(t.attributes.s ?? 0),
          value: undefined,
          formula: undefined,
          inline: undefined,
        };
      } else if (cell && (n === "v" || n === "f" || (n === "t" && phonetic === 0))) {
        field = n;
        buffer = [];
      } else if (n === "rPh") phonetic += 1;
    },
    text: (s) => {
      if (field) buffer.push(s);
    },
    close: (name) => {
      const n = local(name);
      if (n === "rPh") phonetic -= 1;
      if (cell && field === n) {
        const text = buffer.join("");
        if (n === "v") cell.value = text;
        else if (n === "f") cell.formula = text;
        else cell.inline = (cell.inline ?? "") + text;
        field = null;
      } else if (n === "c" && cell) {
        onCell(cell);
        cell = null;
      }
    },
  });
}

/** The notes (legacy comments) of a sheet, by cell address. */
export async function sheetNotes(
  zip: ZipReader,
  sheetPart: string,
  what: string,
): Promise<Map<string, string>> {
  const notes = new Map<string, string>();
  const rels = await relationships(zip, sheetPart, what);
  for (const target of rels.values()) {
    if (!/comments\d*\.xml$/.test(target) || !zip.names.has(target)) continue;
    const texts: string[] = [];
    const refs: string[] = [];
    const collect = itemTexts("comment", texts);
    await parsePart(zip, target, what, {
      ...collect,
      open: (t) => {
        if (local(t.name) === "comment") refs.push(t.attributes.ref ?? "");
        collect.open!(t);
      },
    });
    for (const [i, ref] of refs.entries()) notes.set(ref, texts[i] ?? "");
  }
  return notes;
}
