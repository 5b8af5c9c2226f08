// Progress on stderr: one quiet line per finished trial without a TTY (CI, pipes), a block redrawn
// in place on a TTY, with passes, infrastructure errors, tokens, cost and an ETA.
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
import { fakeRunner, resolver, scaffoldTasks } from "./support/calibrate-fixtures.ts";
import { tempProject } from "./support/project.ts";
import { TextSink } from "./support/text-sink.ts";

const ESC = String.fromCharCode(27);

async function calibrateWith(stream: TextSink, live: boolean) {
  const paths = tempProject();
  const tasks = scaffoldTasks(paths, ["alpha"]);
  const plan = buildPlan({
    runId: "run-p",
    config: CalibrationConfig.parse({ n: 2, curtail: false }),
    tasks,
    resolveAgent: resolver(),
  });
  const runDir = path.join(paths.runs, "run-p");
  mkdirSync(runDir, { recursive: true });
  let clock = 0;
  const progress = new Progress(plan, tallyRecords(plan, []), {
    stream,
    live,
    intervalMs: 1,
    now: () => (clock += 1000),
  });
  await runCalibration({
    plan,
    runDir,
    tasks: new Map(tasks.map((t) => [t.id, t])),
    runner: fakeRunner({ pass: { "frontier+A": 1 }, script: { "mid+A": "PF" }, delayMs: 3 }),
    records: [],
    concurrency: 2,
    events: progress,
  });
  progress.close();
}

describe("progress", () => {
  it("writes one plain line per trial and a total when not on a TTY", async () => {
    const stream = new TextSink(false);
    await calibrateWith(stream, false);
    const lines = stream.text.trimEnd().split("\n");
    expect(lines).toHaveLength(9);
    expect(stream.text).not.toContain(ESC);
    expect(lines[0]).toMatch(/^\[1\/8\] alpha frontier\+A #0 pass · 1\.2k tok · \$0\.010 · 2s · eta \d+s$/);
    expect(lines.filter((l) => / mid\+A #\d fail /.test(l))).toHaveLength(1);
    expect(lines.at(-1)).toBe(
      "trials 8/8 · pass 3 · fail 5 · infra 0 · running 0 · spent 9.6k tokens · $0.08",
    );
  });

  it("redraws a block in place on a TTY", async () => {
    const stream = new TextSink(true);
    await calibrateWith(stream, true);
    // Each redraw moves the cursor up over the block ("ESC [ n F") and clears to the end ("ESC [ J").
    const redraws = stream.text.split(`${ESC}[J`);
    expect(redraws.length).toBeGreaterThan(2);
    expect(redraws[0]!.endsWith("F")).toBe(true);
    const last = redraws.at(-1)!;
    expect(last).toContain("calibrating");
    expect(last).toMatch(/alpha {2}frontier\+A .*2.*\/2/);
    expect(last).toMatch(
      /trials 8\/8 · .*pass 3.* · .*fail 5.* · .*infra 0.* · running 0 · spent 9\.6k tokens · \$0\.08/,
    );
  });
});
