// Test support for the viewer: the paper-shaped run with one -A trial made readable — a verdict
// with a diff, a trajectory with a model turn, a tool call and its output, a probe's answer and an
// error — and every record but the last written, so that a test can append it (live refresh).
import { appendFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { TrialRecord } from "../../src/model/index.ts";
import type { ProjectPaths } from "../../src/project.ts";
import { type PaperRun, paperRun } from "./paper-run.ts";

export const SHOWN_TRIAL = "t02.without-A.frontier.1";
export const SHOWN_DIFF =
  "total_cost: expected 1234.5600, got 1000.0000 (a missing leaf priced at list, not 0.00)";

const EVENTS = [
  { at: "2026-11-30T12:00:01.000Z", type: "model", turn: 1, text: "I will read the BOM first." },
  {
    at: "2026-11-30T12:00:02.000Z",
    type: "tool-call",
    turn: 1,
    name: "bash",
    input: { command: "cat bom.csv" },
  },
  {
    at: "2026-11-30T12:00:03.000Z",
    type: "tool-result",
    turn: 1,
    name: "bash",
    isError: false,
    output: "part,qty\nA,2",
  },
  {
    at: "2026-11-30T12:00:04.000Z",
    type: "note",
    kind: "probe",
    question: "Which overhead rate applies?",
    answer: "10% flat",
  },
  { at: "2026-11-30T12:00:05.000Z", type: "error", kind: "tool-timeout", message: "bash ran over 30 s" },
];

export interface ViewRun extends PaperRun {
  /** The record held back, as its JSON line. */
  lastLine: string;
  append(): void;
}

export function viewRun(paths: ProjectPaths): ViewRun {
  const made = paperRun(paths);
  const records: TrialRecord[] = made.records.map((r) =>
    r.trialId === SHOWN_TRIAL
      ? { ...r, verdict: { ...r.verdict, diff: SHOWN_DIFF, reason: "1 of 3 values differ" } }
      : r,
  );
  const shown = records.find((r) => r.trialId === SHOWN_TRIAL)!;
  writeFileSync(
    path.join(made.runDir, shown.trajectory!),
    EVENTS.map((e) => `${JSON.stringify(e)}\n`).join(""),
  );
  const trials = path.join(made.runDir, "trials.jsonl");
  writeFileSync(
    trials,
    records
      .slice(0, -1)
      .map((r) => `${JSON.stringify(r)}\n`)
      .join(""),
  );
  const lastLine = `${JSON.stringify(records.at(-1))}\n`;
  return { ...made, records, lastLine, append: () => appendFileSync(trials, lastLine) };
}
