// Extraction: a file's bytes (and its name) -> the documents the matchers read, by file format.
import { isAscii } from "node:buffer";
import path from "node:path";
import { type AuditDocument, cellSpans, floorIndex, lineStarts, textLocator, unquote } from "./document.ts";
import { jsonDocument } from "./extract-json.ts";
import { isAsciiText } from "./normalise.ts";

export type FileFormat = "text" | "csv" | "tsv" | "json" | "jsonl" | "xlsx" | "binary";

const FORMATS: Record<string, FileFormat> = {
  ".csv": "csv",
  ".tsv": "tsv",
  ".tab": "tsv",
  ".json": "json",
  ".jsonl": "jsonl",
  ".ndjson": "jsonl",
  ".xlsx": "xlsx",
  ".xlsm": "xlsx",
};

export function formatOf(file: string, bytes: Buffer): FileFormat {
  const known = FORMATS[path.extname(file).toLowerCase()];
  if (known) return known;
  // Anything else is read as text unless it looks binary (a NUL byte near the start).
  return bytes.subarray(0, 8192).includes(0) ? "binary" : "text";
}

function decodeText(bytes: Buffer): { text: string; ascii: boolean } {
  if (isAscii(bytes)) return { text: bytes.toString("latin1"), ascii: true };
  const text = bytes.toString("utf8");
  return { text: text.charCodeAt(0) === 0xfeff ? ` ${text.slice(1)}` : text, ascii: false };
}

function tableDocument(file: string, text: string, ascii: boolean, delimiter: string): AuditDocument {
  let starts: Int32Array | undefined;
  let header: string[] | undefined;
  return {
    file,
    text,
    ascii,
    delimiter,
    lineContext: true,
    locate: textLocator(text),
    structure: (offset) => {
      starts ??= lineStarts(text);
      const lineEnd = (i: number) => (i + 1 < starts!.length ? starts![i + 1]! - 1 : text.length);
      header ??= cellSpans(text.slice(0, lineEnd(0)), delimiter).map(([a, b]) => unquote(text.slice(a, b)));
      const line = floorIndex(starts, offset);
      const lineText = text.slice(starts[line], lineEnd(line));
      const within = offset - starts[line]!;
      const column = cellSpans(lineText, delimiter).findIndex(([, b]) => within <= b);
      const name = header[column];
      return line === 0 ? `header row` : `column ${name ? `"${name}"` : column + 1}`;
    },
    structureText: () => {
      const eol = text.indexOf("\n");
      return `header row ${eol < 0 ? text : text.slice(0, eol)}`;
    },
  };
}

/** The file name as its own document (a leak can hide in a path). */
export function fileNameDocument(file: string, name: string): AuditDocument {
  return {
    file,
    text: name,
    ascii: isAsciiText(name),
    lineContext: true,
    locate: (start, end) => ({ part: "file name", column: start + 1, endColumn: end + 1 }),
    structure: () => "file name",
    structureText: () => "file name",
  };
}

/** Documents of one file's content. Throws (with the file named) when the content cannot be read. */
export async function contentDocuments(file: string, bytes: Buffer): Promise<AuditDocument[]> {
  const format = formatOf(file, bytes);
  if (format === "binary") return [];
  // The workbook reader (zip, XML and number-format libraries) loads only when a workbook is read.
  if (format === "xlsx") return [await (await import("./extract-xlsx.ts")).xlsxDocument(file, bytes)];
  const { text, ascii } = decodeText(bytes);
  if (format === "csv" || format === "tsv")
    return [tableDocument(file, text, ascii, format === "csv" ? "," : "\t")];
  if (format === "json" || format === "jsonl") return [jsonDocument(file, text, ascii, format === "jsonl")];
  return [
    {
      file,
      text,
      ascii,
      lineContext: false,
      locate: textLocator(text),
      structure: () => undefined,
      structureText: () => "",
    },
  ];
}
