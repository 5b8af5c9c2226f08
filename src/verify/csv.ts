// A strict RFC 4180 CSV reader (quotes, doubled quotes, CRLF or LF) that reports the line of a problem.

export interface CsvText {
  header: string[];
  /** Data records, each with as many fields as the header. */
  records: string[][];
  /** 1-based line on which each record starts. */
  lines: number[];
}

export type CsvParse = { ok: true; csv: CsvText } | { ok: false; reason: string };

const QUOTE = 34;
const COMMA = 44;
const LF = 10;
const CR = 13;

/**
 * Parses CSV text. A blank line is skipped; a record whose field count differs from the header's,
 * an unterminated quoted field, or text after a closing quote is an error naming the line.
 */
export function parseCsv(text: string): CsvParse {
  const records: string[][] = [];
  const lines: number[] = [];
  let line = 1;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const startLine = line;
    const fields: string[] = [];
    for (;;) {
      let field: string;
      if (text.charCodeAt(i) === QUOTE) {
        let value = "";
        let j = i + 1;
        for (;;) {
          const q = text.indexOf('"', j);
          if (q < 0) return { ok: false, reason: `line ${startLine}: quoted field is never closed` };
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
          return { ok: false, reason: `line ${line}: unexpected text after a closing quote` };
        }
        field = value;
      } else {
        let j = i;
        while (j < n) {
          const c = text.charCodeAt(j);
          if (c === COMMA || c === LF || c === CR) break;
          j++;
        }
        field = text.slice(i, j);
        i = j;
      }
      fields.push(field);
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
    records.push(fields);
    lines.push(startLine);
  }
  const header = records.shift();
  const headerLine = lines.shift();
  if (!header) return { ok: false, reason: "no header line" };
  for (let r = 0; r < records.length; r++) {
    const record = records[r]!;
    if (record.length !== header.length) {
      return {
        ok: false,
        reason: `line ${lines[r]}: ${record.length} field(s), the header (line ${headerLine}) has ${header.length}`,
      };
    }
  }
  return { ok: true, csv: { header, records, lines } };
}

/** Quotes a field when it holds a comma, a quote, a line break or surrounding spaces. */
export function csvField(value: string): string {
  return /[",\r\n]|^\s|\s$/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}
