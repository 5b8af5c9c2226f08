// A strict RFC 4180 CSV reader (quotes, doubled quotes, CRLF or LF) that reports the line of a problem.

export interface CsvText {
  header: string[];
  /** Data records, each with as many fields as the header. */
  records: string[][];
  /** 1-based line on which each record starts. */
  lines: number[];
}

export type CsvParse = { ok: true; csv: CsvText } | { ok: false; reason: string };

/** Receives each record as it is read; returning a string stops reading with that reason. */
export interface CsvVisitor {
  header(fields: string[], line: number): string | undefined;
  record(fields: string[], line: number): string | undefined;
}

const QUOTE = 34;
const COMMA = 44;
const LF = 10;
const CR = 13;

/**
 * Reads CSV text record by record, holding none of them. A blank line is skipped; a record whose
 * field count differs from the header's, an unterminated quoted field, or text after a closing
 * quote is an error naming the line. Returns the reason of the first problem, if any.
 */
export function readCsv(text: string, visitor: CsvVisitor): string | undefined {
  let line = 1;
  let i = 0;
  const n = text.length;
  let width = -1;
  let headerLine = 0;
  while (i < n) {
    const startLine = line;
    const fields: string[] = [];
    for (;;) {
      if (text.charCodeAt(i) === QUOTE) {
        let value = "";
        let j = i + 1;
        for (;;) {
          const q = text.indexOf('"', j);
          if (q < 0) return `line ${startLine}: quoted field is never closed`;
          value += text.slice(j, q);
          for (let k = j; k < q; k++) if (text.charCodeAt(k) === LF) line++;
          if (text.charCodeAt(q + 1) === QUOTE) {
            value += '"';
            j = q + 2;
            continue;
          }
          i = q + 1;
          break;
        }
        const next = text.charCodeAt(i);
        if (i < n && next !== COMMA && next !== LF && next !== CR) {
          return `line ${line}: unexpected text after a closing quote`;
        }
        fields.push(value);
      } else {
        let j = i;
        while (j < n) {
          const c = text.charCodeAt(j);
          if (c === COMMA || c === LF || c === CR) break;
          j++;
        }
        fields.push(text.slice(i, j));
        i = j;
      }
      const c = text.charCodeAt(i);
      if (c === COMMA) {
        i++;
        continue;
      }
      if (c === CR) i++;
      if (text.charCodeAt(i) === LF) i++;
      line++;
      break;
    }
    if (fields.length === 1 && fields[0] === "") continue;
    if (width < 0) {
      width = fields.length;
      headerLine = startLine;
      const problem = visitor.header(fields, startLine);
      if (problem) return problem;
      continue;
    }
    if (fields.length !== width) {
      return `line ${startLine}: ${fields.length} field(s), the header (line ${headerLine}) has ${width}`;
    }
    const problem = visitor.record(fields, startLine);
    if (problem) return problem;
  }
  return width < 0 ? "no header line" : undefined;
}

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
  return problem ? { ok: false, reason: problem } : { ok: true, csv: { header, records, lines } };
}

/** Quotes a field when it holds a comma, a quote, a line break or surrounding spaces. */
export function csvField(value: string): string {
  return /[",\r\n]|^\s|\s$/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}
