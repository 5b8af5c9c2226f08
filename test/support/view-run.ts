// Test support for the viewer: the paper-shaped run with one -A trial made readable — a verdict
// with the verifier's unified diff (three differing rows), a collected output kept in the trial's
// folder (with markup in it) and a missing one, a trajectory with a model turn, a tool call and its
// output, a call without input, a probe's answer and an error — and every record but the last
// written, so that a test can append it (live refresh).
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createTwoFilesPatch } from "diff";
import type { ProjectPaths } from "../../src/project.ts";
import type { TrialRecord } from "../../src/record/index.ts";
import { type PaperRun, paperRun } from "./paper-run.ts";

export const SHOWN_TRIAL = "t02.without-A.frontier.1";
/** Three rows of the output, expected and as the agent wrote them. */
export const DIFF_ROWS = [
  ["A-100,38.5000", "A-100,12.4000"],
  ["A-200,12.0000", "A-200,11.0000"],
  ["A-300,7.2500", "A-300,7.0000"],
] as const;
/** The diff as kgate's verifier writes it (src/verify/diff.ts: a unified diff, no context lines). */
export const SHOWN_DIFF = createTwoFilesPatch(
  "expected/output/assembly_costs.csv",
  "actual/output/assembly_costs.csv",
  `${DIFF_ROWS.map((r) => r[0]).join("\n")}\n`,
  `${DIFF_ROWS.map((r) => r[1]).join("\n")}\n`,
  undefined,
  undefined,
  { context: 0 },
);
/** The collected output's bytes: markup the page must show as text. */
export const SHOWN_OUTPUT = "assembly,unit_cost\nA-100,12.4000\n<script>alert(1)</script>\n";

const EVENTS = [
  { at: "2026-11-30T12:00:01.000Z", type: "model", turn: 1, text: "I will read the BOM first." },
  {
    at: "2026-11-30T12:00:02.000Z",
    type: "tool-call",
    turn: 1,
    id: "call-1",
    name: "bash",
    input: { command: "cat bom.csv" },
  },
  {
    at: "2026-11-30T12:00:03.000Z",
    type: "tool-result",
    turn: 1,
    id: "call-1",
    name: "bash",
    isError: false,
    output: "part,qty\nA,2",
  },
  { at: "2026-11-30T12:00:03.500Z", type: "tool-call", turn: 2, id: "call-2", name: "finish", input: {} },
  {
    at: "2026-11-30T12:00:03.600Z",
    type: "tool-result",
    turn: 2,
    id: "call-2",
    name: "finish",
    isError: false,
    output: "",
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
      ? {
          ...r,
          verdict: { ...r.verdict, diff: SHOWN_DIFF, reason: "1 of 3 values differ" },
          outputs: [
            { path: "output/assembly_costs.csv", status: "collected" as const, size: SHOWN_OUTPUT.length },
            { path: "output/notes.txt", status: "missing" as const, reason: "the file was not written" },
          ],
        }
      : r,
  );
  const shown = records.find((r) => r.trialId === SHOWN_TRIAL)!;
  const kept = path.join(
    made.runDir,
    path.dirname(shown.trajectory!),
    "outputs",
    "output",
    "assembly_costs.csv",
  );
  mkdirSync(path.dirname(kept), { recursive: true });
  writeFileSync(kept, SHOWN_OUTPUT);
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
