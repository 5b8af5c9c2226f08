// kgate's one CSV reader, on csv-parse: RFC 4180 (quotes, doubled quotes, fields spanning lines,
// CRLF, LF or CR line ends), a leading BOM dropped, blank lines skipped, a record's size bounded,
// each record handed to a visitor with the line it starts on, and every problem named by its line.
import { parse } from "csv-parse/sync";

/** A problem of a CSV text: its 1-based line (null for the whole text) and what is wrong. */
export interface CsvProblem {
  line: number | null;
  message: string;
}

/**
 * Receives the header, then each record, as they are read (none is held). A method returning a
 * message stops the reading with that message as the problem of the record's line.
 */
export interface CsvVisitor {
  header(fields: string[], line: number): string | undefined;
  record(fields: string[], line: number): string | undefined;
  /** A record whose field count differs from the header's; without this method it stops the reading. */
  ragged?(fields: string[], line: number, width: number): string | undefined;
}

/**
 * The largest record read (csv-parse's count: the record's fields in characters, the field being read
 * in UTF-8 bytes). A quoted field left open by a hostile output would otherwise swallow the whole rest
 * of the text into one field before the missing quote is found.
 */
export const MAX_CSV_RECORD_SIZE = 8 * 1024 * 1024;

export interface CsvOptions {
  /** Records larger than this are a problem of their line (default MAX_CSV_RECORD_SIZE). */
  maxRecordSize?: number;
}

/** What a visitor's returned message becomes: thrown out of csv-parse's record hook, caught below. */
class Stop {
  constructor(readonly problem: CsvProblem) {}
}

/** Line breaks inside a record's fields (only a quoted field holds one): CRLF, LF or CR, each one. */
function breaksWithin(fields: readonly string[]): number {
  let breaks = 0;
  for (const field of fields) {
    if (field.indexOf("\n") < 0 && field.indexOf("\r") < 0) continue;
    breaks += field.match(/\r\n|\n|\r/g)!.length;
  }
  return breaks;
}

interface ParseError {
  code?: string;
  message: string;
  /** Blank lines csv-parse had skipped. */
  empty_lines?: number;
}

const SYNTAX: Record<string, string> = {
  CSV_QUOTE_NOT_CLOSED: "quoted field is never closed",
  CSV_INVALID_CLOSING_QUOTE: "unexpected text after a closing quote",
  INVALID_OPENING_QUOTE:
    'a quote inside an unquoted field (quote the whole field and double its quotes: "5"" pipe")',
};

/**
 * csv-parse's error in kgate's words, on the line where the record it was reading begins (csv-parse's
 * own line count takes a CRLF inside a quoted field for two lines).
 */
function syntaxProblem(err: ParseError, recordLine: number, maxRecordSize: number): CsvProblem {
  if (err.code === "CSV_MAX_RECORD_SIZE") {
    const message = `a record over ${maxRecordSize} characters (a quoted field never closed, or a field too large)`;
    return { line: recordLine, message };
  }
  return { line: recordLine, message: (err.code && SYNTAX[err.code]) || err.message };
}

/**
 * Reads CSV text record by record. A blank line (or one empty field) is skipped; a record whose
 * field count differs from the header's goes to `ragged` (or is a problem), an unterminated quoted
 * field or text after a closing quote is a problem naming its line. Returns the first problem.
 */
export function readCsv(text: string, visitor: CsvVisitor, options: CsvOptions = {}): CsvProblem | undefined {
  const maxRecordSize = options.maxRecordSize ?? MAX_CSV_RECORD_SIZE;
  let width = -1;
  let headerLine = 0;
  // The line the next record begins on, less the blank lines csv-parse skips before it.
  let nextLine = 1;
  let emptyLines = 0;
  const visit = (fields: string[], skippedBlankLines: number): null => {
    const line = nextLine + skippedBlankLines - emptyLines;
    nextLine = line + breaksWithin(fields) + 1;
    emptyLines = skippedBlankLines;
    if (fields.length === 1 && fields[0] === "") return null;
    const stopWith = (message: string | undefined) => {
      if (message !== undefined) throw new Stop({ line, message });
    };
    if (width < 0) {
      width = fields.length;
      headerLine = line;
      stopWith(visitor.header(fields, line));
    } else if (fields.length !== width) {
      stopWith(
        visitor.ragged
          ? visitor.ragged(fields, line, width)
          : `${fields.length} field(s), the header (line ${headerLine}) has ${width}`,
      );
    } else stopWith(visitor.record(fields, line));
    return null;
  };
  try {
    parse(text, {
      bom: true,
      record_delimiter: ["\r\n", "\n", "\r"],
      relax_column_count: true,
      skip_empty_lines: true,
      max_record_size: maxRecordSize,
      on_record: (record: string[], info) => visit(record, info.empty_lines),
    });
  } catch (err) {
    if (err instanceof Stop) return err.problem;
    const parseError = err as ParseError;
    const line = nextLine + (parseError.empty_lines ?? emptyLines) - emptyLines;
    return syntaxProblem(parseError, line, maxRecordSize);
  }
  return width < 0 ? { line: null, message: "no header line" } : undefined;
}

/** A problem as one line of text: `line 3: ...`, or the message alone for the whole text. */
export function csvProblemText(problem: CsvProblem): string {
  return problem.line === null ? problem.message : `line ${problem.line}: ${problem.message}`;
}
