// Test support: a calibration run of library tasks whose trials are scripted (no container, no
// model): the plan of the default cells, one record per trial with the outcome the script gives
// (by cell label, P pass / F fail per trial index), as `kgate calibrate` leaves a run directory.
// bom-costing is retained by SCRIPT (frontier+A 5/5, frontier-A 0/5, mid+A 1/5, control 0/5);
// `passMinusA` turns the first -A trial of the named tasks into a pass (not retained: "= 0" broken).
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import {
  buildPlan,
  CalibrationConfig,
  runCalibration,
  runDir,
  writePlan,
} from "../../src/calibrate/index.ts";
import type { ProjectPaths } from "../../src/project.ts";
import { loadValidTask } from "../../src/task/index.ts";
import { fakeRunner, resolver } from "./calibrate-fixtures.ts";

const SCRIPT = { "frontier+A": "PPPPP", "frontier-A": "FFFFF", "mid+A": "PFFFF", control: "FFFFF" };

export async function scriptedRun(
  paths: ProjectPaths,
  dir: string,
  ids: readonly string[],
  passMinusA: readonly string[] = [],
): Promise<string> {
  const tasks = ids.map((id) => loadValidTask(paths, id));
  const plan = buildPlan({
    runId: "cal-test",
    config: CalibrationConfig.parse({ curtail: false }),
    tasks,
    resolveAgent: resolver(),
  });
  const run = runDir(paths, path.join(dir, "cal-test"));
  writePlan(run, plan);
  await runCalibration({
    plan,
    runDir: run.dir,
    tasks: new Map(tasks.map((t) => [t.id, t])),
    runner: fakeRunner({ pass: {}, script: { ...SCRIPT } }),
    records: [],
    concurrency: 2,
  });
  const trials = path.join(run.dir, "trials.jsonl");
  const lines = readFileSync(trials, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  for (const line of lines) {
    if (passMinusA.includes(line.task.id) && line.condition === "-A" && line.index === 0) {
      line.verdict = { status: "pass", reward: 1, score: 1, criteria: [], attribution: null };
    }
  }
  writeFileSync(trials, lines.map((l) => `${JSON.stringify(l)}\n`).join(""));
  return run.dir;
}
