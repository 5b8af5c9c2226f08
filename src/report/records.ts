// Reads runs/<run>/trials.jsonl: one TrialRecord per line. A bad line is reported with its line
// number and field and skipped; it never hides the other records.
import { existsSync, readFileSync } from "node:fs";
import { TrialRecord } from "../trial/record.ts";

export interface RecordsRead {
  records: TrialRecord[];
  /** One worded problem per skipped line: `<file>: line <n>: <field>: <message>`. */
  problems: string[];
}

export function readRecordsFile(file: string, shownAs: string = file): RecordsRead {
  if (!existsSync(file)) return { records: [], problems: [] };
  const text = readFileSync(file, "utf8");
  const lines = text.split("\n");
  const records: TrialRecord[] = [];
  const problems: string[] = [];
  lines.forEach((line, i) => {
    if (line.trim() === "") return;
    const where = `${shownAs}: line ${i + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      const last = i === lines.length - 1;
      problems.push(
        last
          ? `${where}: incomplete last line ignored (no record was finished there)`
          : `${where}: invalid JSON: ${(err as Error).message}`,
      );
      return;
    }
    const parsed = TrialRecord.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const field = issue.path.length > 0 ? `${issue.path.join(".")}: ` : "";
      problems.push(`${where}: not a trial record: ${field}${issue.message}`);
      return;
    }
    records.push(parsed.data);
  });
  return { records, problems };
}
