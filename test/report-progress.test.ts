// Progress lines count what the report counts: a resumed session's totals are the run's (the
// earlier session's tokens and cost included), tokens are the budget's (cache reads and writes
// included), and a trial's number is its 0-based index, as in its id and the HTML report.
import { mkdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  buildPlan,
  CalibrationConfig,
  Progress,
  runCalibration,
  tallyRecords,
} from "../src/calibrate/index.ts";
import { fakeRunner, recordsFromScript, resolver, scaffoldTasks } from "./support/calibrate-fixtures.ts";
import { tempProject } from "./support/project.ts";
import { TextSink } from "./support/text-sink.ts";

describe("progress of a resumed run", () => {
  it("shows the run's tokens and cost, the budget's count, 0-based trial numbers", async () => {
    const paths = tempProject();
    const tasks = scaffoldTasks(paths, ["alpha"]);
    const plan = buildPlan({
      runId: "run-r",
      config: CalibrationConfig.parse({ n: 2, curtail: false }),
      tasks,
      resolveAgent: resolver(),
    });
    const byId = new Map(tasks.map((t) => [t.id, t]));
    // The first session finished frontier+A's two trials; one of them also read 500 cache tokens.
    const earlier = recordsFromScript(plan, byId, { alpha: { "frontier+A": "PP" } });
    earlier[0] = { ...earlier[0]!, usage: { ...earlier[0]!.usage, cacheReadTokens: 500 } };
    const runDir = path.join(paths.runs, "run-r");
    mkdirSync(runDir, { recursive: true });
    const stream = new TextSink();
    const progress = new Progress(plan, tallyRecords(plan, earlier), { stream, live: false });
    await runCalibration({
      plan,
      runDir,
      tasks: byId,
      runner: fakeRunner({ pass: { "frontier+A": 1 }, script: { "mid+A": "PF" }, delayMs: 1 }),
      records: earlier,
      concurrency: 1,
      events: progress,
    });
    progress.close();
    const lines = stream.text.trimEnd().split("\n");
    // This session ran the other 6 trials (4 cells x 2 - 2); each record has 1,000 + 200 tokens
    // and costs $0.01. Run totals: 8 x 1,200 + 500 = 10,100 tokens (10.1k), 8 x $0.01 = $0.08.
    expect(lines).toHaveLength(6 + 1);
    expect(lines.at(-1)).toMatch(/^trials 8\/8 · .* · spent 10\.1k tokens · \$0\.08$/);
    // Trial numbers run 0 and 1 in every cell, as the ids (alpha.with-A.mid.0, .1) do.
    expect(lines.filter((l) => / mid\+A #[01] /.test(l))).toHaveLength(2);
    expect(stream.text).not.toMatch(/ #2 /);
  });
});
