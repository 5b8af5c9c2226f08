// Test support: a constructed calibration run shaped like the paper's Table 1 — 15 tasks, frontier
// +A 51/75, frontier -A 0/75, mid +A 17/75 — as a plan, valid TrialRecords and its summary.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import {
  buildPlan,
  CalibrationConfig,
  type Plan,
  runDir,
  summarise,
  writePlan,
} from "../../src/calibrate/index.ts";
import type { ProjectPaths } from "../../src/project.ts";
import type { TrialRecord } from "../../src/record/index.ts";
import type { RunSummary } from "../../src/report/index.ts";
import { recordsFromScript, resolver, scaffoldTasks } from "./calibrate-fixtures.ts";

export const PAPER_TASKS = Array.from({ length: 15 }, (_, i) => `t${String(i + 1).padStart(2, "0")}`);

/** Outcome letters per task and cell (see recordsFromScript). */
export function paperScript(): Record<string, Record<string, string>> {
  const script: Record<string, Record<string, string>> = {};
  PAPER_TASKS.forEach((id, i) => {
    const n = i + 1;
    script[id] = {
      "frontier+A": n <= 6 ? "PPPPP" : n <= 13 ? "PPPDD" : "DDDDD",
      "frontier-A": n === 14 ? "DDDMD" : "DDDDD",
      "mid+A": n === 1 ? "PDDDD" : n <= 9 ? "PPDDD" : "DDDDD",
      control: n === 3 ? "PXXXX" : "XXXXX",
    };
  });
  return script;
}

export interface PaperRun {
  plan: Plan;
  records: TrialRecord[];
  summary: RunSummary;
  runDir: string;
}

/** Writes the plan, the records and one trajectory per trial into runs/paper/. */
export function paperRun(paths: ProjectPaths): PaperRun {
  const tasks = scaffoldTasks(paths, PAPER_TASKS);
  const plan = buildPlan({
    runId: "paper",
    createdAt: new Date("2026-11-30T12:00:00Z"),
    config: CalibrationConfig.parse({}),
    tasks,
    resolveAgent: resolver(),
  });
  const records = recordsFromScript(plan, new Map(tasks.map((t) => [t.id, t])), paperScript());
  const run = runDir(paths, "paper");
  writePlan(run, plan);
  writeFileSync(run.trials, records.map((r) => `${JSON.stringify(r)}\n`).join(""));
  for (const r of records) {
    mkdirSync(path.dirname(path.join(run.dir, r.trajectory!)), { recursive: true });
    writeFileSync(path.join(run.dir, r.trajectory!), '{"type":"note"}\n');
  }
  return {
    plan,
    records,
    summary: summarise(plan, records, [], new Date("2026-11-30T13:00:00Z")),
    runDir: run.dir,
  };
}
