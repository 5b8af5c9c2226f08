// JSON-lines files (runs/<run>/*.jsonl): appending one value per line in one write(2) after closing
// off a torn last line, and reading them back with every bad line reported by file and number while
// the good ones are kept.
import { closeSync, existsSync, fstatSync, openSync, readFileSync, readSync, writeSync } from "node:fs";
import type { z } from "zod";
import { fieldPath } from "./field-path.ts";

/**
 * Appends `value` as one JSON line with a single write(2) on an O_APPEND descriptor, so concurrent
 * writers (threads of a pool, other processes) never interleave. If an earlier process died in the
 * middle of a line, a newline is put first so the torn line stays alone (and is reported by the reader).
 */
export function appendJsonLine(file: string, value: unknown): void {
  const line = `${JSON.stringify(value)}\n`;
  const fd = openSync(file, "a+");
  try {
    const size = fstatSync(fd).size;
    let prefix = "";
    if (size > 0) {
      const last = Buffer.alloc(1);
      readSync(fd, last, 0, 1, size - 1);
      if (last[0] !== 0x0a) prefix = "\n";
    }
    const bytes = Buffer.from(prefix + line);
    const written = writeSync(fd, bytes);
    if (written !== bytes.length) throw new Error(`short write to ${file} (${written}/${bytes.length})`);
  } finally {
    closeSync(fd);
  }
}

/** A line that could not be read: not JSON (a torn write), or not what the schema allows. */
export interface LineProblem {
  file: string;
  /** 1-based. */
  line: number;
  message: string;
}

export interface JsonLines<T> {
  records: T[];
  problems: LineProblem[];
}

/**
 * Reads a JSON-lines file against `schema`; a missing file has no lines. A line that fails the schema
 * is reported as `not a valid <what>: <field>: <issue>; ...` (or by `invalid`, given the issues).
 */
export function readJsonLines<T>(
  file: string,
  schema: z.ZodType<T>,
  what: string,
  invalid: (issues: readonly z.core.$ZodIssue[]) => string = (issues) =>
    `not a valid ${what}: ${issues.map((issue) => `${fieldPath(issue.path)}: ${issue.message}`).join("; ")}`,
): JsonLines<T> {
  const records: T[] = [];
  const problems: LineProblem[] = [];
  if (!existsSync(file)) return { records, problems };
  const lines = readFileSync(file, "utf8").split("\n");
  lines.forEach((text, i) => {
    if (!text.trim()) return;
    const line = i + 1;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (err) {
      const torn = i === lines.length - 1 ? " (an incomplete last line: a write was cut off)" : "";
      problems.push({ file, line, message: `invalid JSON${torn}: ${(err as Error).message}` });
      return;
    }
    const parsed = schema.safeParse(json);
    if (parsed.success) records.push(parsed.data);
    else problems.push({ file, line, message: invalid(parsed.error.issues) });
  });
  return { records, problems };
}

/** `file:line: message`, as a warning shows a problem. */
export const lineProblemText = (p: LineProblem) => `${p.file}:${p.line}: ${p.message}`;
