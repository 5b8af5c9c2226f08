// The progress line's count of trials (issue 47 item 5): its denominator (done + left) moved without
// a word: a retried attempt showed one trial fewer, and two trials ending before the scheduler counted
// again showed one more. Now it moves only when the trials left change for a reason, and the line
// after the move says which (sequential screening added trials; curtailment dropped some).
import { describe, expect, it } from "vitest";
import { buildPlan, CalibrationConfig, Progress, tallyRecords } from "../src/calibrate/index.ts";
import type { Outcome } from "../src/record/index.ts";
import { jobFor, recordFor, resolver, scaffoldTasks } from "./support/calibrate-fixtures.ts";
import { tempProject } from "./support/project.ts";
import { TextSink } from "./support/text-sink.ts";

describe("the progress line's count of trials", () => {
  it("moves only for a reason, and the line after the move says it", () => {
    const paths = tempProject();
    const tasks = scaffoldTasks(paths, ["alpha"]);
    const plan = buildPlan({
      runId: "run-n",
      config: CalibrationConfig.parse({ n: 2 }),
      tasks,
      resolveAgent: resolver(),
    });
    const stream = new TextSink();
    const progress = new Progress(plan, tallyRecords(plan, []), { stream, live: false });
    const byId = new Map(tasks.map((t) => [t.id, t]));
    const [a, b, c] = plan.cells;
    const finish = (cell: typeof a, index: number, outcome: Outcome, retrying = false) => {
      const job = jobFor(plan, byId, cell!, index);
      progress.finished(job, recordFor(job, { outcome, costUsd: 0.01 }), outcome, retrying);
    };
    progress.planned(8);
    finish(a, 0, "pass"); // 1 done, 7 left
    finish(b, 0, "fail"); // before the scheduler counts again: 2 done, 6 left (was shown 2/9)
    progress.planned(6); // the scheduler agrees: nothing moved
    finish(c, 0, "infra", true); // retried: still 2 done, 6 left (was shown 2/7)
    progress.planned(7); // one trial more: 2 + 7 = 9
    finish(c, 0, "pass"); // 3 done, 6 left
    progress.curtailed();
    progress.planned(4); // two fewer: 3 + 4 = 7
    finish(a, 1, "fail"); // 4 done, 3 left
    progress.close();
    const lines = stream.text.trim().split("\n");
    // each trial line up to its task, the totals line up to its passes
    expect(lines.map((l) => l.split(" alpha ")[0]!.split(" · pass")[0])).toEqual([
      "[1/≤8]",
      "[2/≤8]",
      "[2/≤8]",
      "[3/≤9] (+1: sequential screening added trials)",
      "[4/≤7] (-2: curtailed (no outcome of the rest changes a decision))",
      "trials 4/≤7 (-2: curtailed (no outcome of the rest changes a decision))",
    ]);
  });
});
