// runs/<run>/trials.jsonl: appending one TrialRecord per line atomically, and reading them back
// with every bad line reported by number while the good ones are kept (the JSON-lines store of src/common).
import { mkdirSync } from "node:fs";
import path from "node:path";
import { appendJsonLine, type JsonLines, readJsonLines } from "../common/index.ts";
import { TrialRecord } from "../record/index.ts";

const TRIALS_FILE = "trials.jsonl";

export function trialsFileOf(runDir: string): string {
  return path.join(runDir, TRIALS_FILE);
}

/**
 * Appends one record as one line with a single write(2), so concurrent writers never interleave;
 * a torn last line of a dead process is closed off first (appendJsonLine).
 */
export function appendTrialRecord(runDir: string, record: TrialRecord): void {
  mkdirSync(runDir, { recursive: true });
  appendJsonLine(trialsFileOf(runDir), TrialRecord.parse(record));
}

export type ReadRecords = JsonLines<TrialRecord>;

/** Reads runs/<run>/trials.jsonl; a missing file is an empty run. */
export function readTrialRecords(runDir: string): ReadRecords {
  return readJsonLines(trialsFileOf(runDir), TrialRecord, "trial record");
}
