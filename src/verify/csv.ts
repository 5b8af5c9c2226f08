// CSV for verifiers and the verifier's own table reading: whole texts read through kgate's one CSV
// reader (src/common/csv.ts, on csv-parse), with the first problem as `line N: ...`; field quoting.
import { csvProblemText, readCsv } from "../common/index.ts";

export interface CsvText {
  header: string[];
  /** Data records, each with as many fields as the header. */
  records: string[][];
  /** 1-based line on which each record starts. */
  lines: number[];
}

export type CsvParse = { ok: true; csv: CsvText } | { ok: false; reason: string };

/** Reads the whole text into header, records and their lines. */
export function parseCsv(text: string): CsvParse {
  let header: string[] = [];
  const records: string[][] = [];
  const lines: number[] = [];
  const problem = readCsv(text, {
    header(fields) {
      header = fields;
      return undefined;
    },
    record(fields, line) {
      records.push(fields);
      lines.push(line);
      return undefined;
    },
  });
  return problem
    ? { ok: false, reason: csvProblemText(problem) }
    : { ok: true, csv: { header, records, lines } };
}

/** Quotes a field when it holds a comma, a quote, a line break or surrounding spaces. */
export function csvField(value: string): string {
  return /[",\r\n]|^\s|\s$/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}
