// The progress line's cost (issue 47 item 5): `$0.00+?` said nothing of what the `+?` was; a trial
// whose configuration has no pricing is now counted and named as unpriced, as the report's cost is.
import { describe, expect, it } from "vitest";
import { buildPlan, CalibrationConfig, Progress, tallyRecords } from "../src/calibrate/index.ts";
import { jobFor, recordFor, resolver, scaffoldTasks } from "./support/calibrate-fixtures.ts";
import { tempProject } from "./support/project.ts";
import { TextSink } from "./support/text-sink.ts";

describe("the progress line's cost", () => {
  it("names the trials it cannot price, and why", () => {
    const paths = tempProject();
    const tasks = scaffoldTasks(paths, ["alpha"]);
    const plan = buildPlan({
      runId: "run-c",
      config: CalibrationConfig.parse({ n: 2, curtail: false }),
      tasks,
      resolveAgent: resolver(),
    });
    const stream = new TextSink();
    const progress = new Progress(plan, tallyRecords(plan, []), { stream, live: false });
    const byId = new Map(tasks.map((t) => [t.id, t]));
    const [first, second] = plan.cells;
    // one priced trial ($0.25) and two without a price
    const priced = jobFor(plan, byId, first!, 0);
    progress.finished(priced, recordFor(priced, { outcome: "pass", costUsd: 0.25 }), "pass", false);
    for (const index of [0, 1]) {
      const job = jobFor(plan, byId, second!, index);
      progress.finished(job, recordFor(job, { outcome: "fail", costUsd: null }), "fail", false);
    }
    progress.close();
    const totals = stream.text.trim().split("\n").at(-1)!;
    expect(totals).toContain("· $0.25 (+2 unpriced: no pricing in their configuration)");
    expect(stream.text).not.toContain("+?");
  });
});
