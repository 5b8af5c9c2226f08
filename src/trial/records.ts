// runs/<run>/trials.jsonl: appending one TrialRecord per line atomically, and reading them back
// with every bad line reported by number while the good ones are kept.
import {
  closeSync,
  existsSync,
  fstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  writeSync,
} from "node:fs";
import path from "node:path";
import { TrialRecord } from "../model/index.ts";
import { fieldPath } from "../task/index.ts";

export const TRIALS_FILE = "trials.jsonl";

export function trialsFileOf(runDir: string): string {
  return path.join(runDir, TRIALS_FILE);
}

/**
 * Appends one record as one line with a single write(2) on an O_APPEND descriptor, so concurrent
 * writers (threads of a pool, other processes) never interleave. If an earlier process died in the
 * middle of a line, a newline is put first so the torn line stays alone (and is reported by the reader).
 */
export function appendTrialRecord(runDir: string, record: TrialRecord): void {
  mkdirSync(runDir, { recursive: true });
  appendJsonLine(trialsFileOf(runDir), JSON.stringify(TrialRecord.parse(record)));
}

/** Appends `json` and a newline to a JSON-lines file in one write(2), after closing off a torn last line. */
export function appendJsonLine(file: string, json: string): void {
  const line = `${json}\n`;
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

export interface RecordProblem {
  file: string;
  line: number;
  message: string;
}

export interface ReadRecords {
  records: TrialRecord[];
  problems: RecordProblem[];
}

/** Reads runs/<run>/trials.jsonl; a missing file is an empty run. */
export function readTrialRecords(runDir: string): ReadRecords {
  const file = trialsFileOf(runDir);
  if (!existsSync(file)) return { records: [], problems: [] };
  const records: TrialRecord[] = [];
  const problems: RecordProblem[] = [];
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
    const parsed = TrialRecord.safeParse(json);
    if (parsed.success) records.push(parsed.data);
    else {
      const issues = parsed.error.issues.map((issue) => `${fieldPath(issue.path)}: ${issue.message}`);
      problems.push({ file, line, message: `not a valid trial record: ${issues.join("; ")}` });
    }
  });
  return { records, problems };
}
