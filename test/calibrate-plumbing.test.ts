// A calibration whose deciding cells run scripted agents (issue 47 item 2): the oracle as frontier
// and noop as mid retain every scaffolded task, which reads like evidence; the progress line,
// summary.json, the Markdown and HTML reports and Table 1's decisions say it checks the plumbing.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  applyOverrides,
  type Backend,
  CalibrationConfig,
  type CellJob,
  calibrate,
} from "../src/calibrate/index.ts";
import { RunSummary, table1 } from "../src/report/index.ts";
import { agentInfo, fakeRunner, scaffoldTasks } from "./support/calibrate-fixtures.ts";
import { tempProject } from "./support/project.ts";
import { TextSink } from "./support/text-sink.ts";

/** The built-in agents run their own harness (oracle, noop); any other name a model's (claude-code). */
function backend(): Backend {
  const harness = (name: string) => (["oracle", "noop"].includes(name) ? name : "claude-code");
  return {
    agents: async (names) => new Map(names.map((n) => [n, { ...agentInfo(n), harness: harness(n) }])),
    // frontier+A passes every trial (the oracle's solution); the other cells fail (as they do in a sandbox)
    start: async () => ({
      runner: (job: CellJob, signal: AbortSignal) => fakeRunner({ pass: { "frontier+A": 1 } })(job, signal),
      stop: async () => {},
    }),
  };
}

/** `kgate calibrate one -n 2 [--frontier <agent> --mid <agent>]`, as the command's overrides build it. */
async function run(agents: { frontier?: string; mid?: string }) {
  const paths = tempProject();
  scaffoldTasks(paths, ["one"]);
  const stderr = new TextSink();
  const result = await calibrate(
    {
      paths,
      config: applyOverrides(CalibrationConfig.parse({ curtail: false, n: 2 }), agents),
      taskIds: [],
      stderr,
      live: false,
    },
    backend(),
  );
  return { ...result, stderr: stderr.text };
}

describe("a calibration of scripted agents", () => {
  it("is labelled a plumbing check in the progress line, summary.json, the reports and its decisions", async () => {
    const { summary, run: dir, stderr } = await run({ frontier: "oracle", mid: "noop" });
    expect(summary.tasks[0]!.decision).toBe("retain");
    expect(summary.tasks[0]!.plumbing).toBe(true);
    // frontier+A, frontier-A and control run the oracle; mid+A runs noop: every deciding cell is scripted
    expect(summary.plumbing).toMatchObject({
      cells: ["frontier+A", "frontier-A", "mid+A", "control"],
      agents: ["oracle", "noop"],
    });
    expect(summary.plumbing!.note).toMatch(/^plumbing check, not evidence: .* not the task/);
    const json = RunSummary.parse(JSON.parse(readFileSync(path.join(dir.dir, "summary.json"), "utf8")));
    expect(json.plumbing?.cells).toEqual(summary.plumbing!.cells);
    expect(json.tasks[0]!.plumbing).toBe(true);
    expect(stderr.split("\n")[0]).toBe(`plumbing check (oracle, noop, not a model) · calibrating ${dir.id}`);
    expect(stderr).toMatch(/plumbing check \(oracle, noop, not a model\) · trials 8\/8/);
    expect(table1(summary)).toMatch(/\| retain \(plumbing check, not evidence[;)]/);
    const md = readFileSync(path.join(dir.dir, "report.md"), "utf8");
    expect(md).toContain(`> **${summary.plumbing!.note}**`);
    const html = readFileSync(path.join(dir.dir, "report.html"), "utf8");
    expect(html).toContain('<p id="plumbing"><strong>plumbing check, not evidence:');
  });

  it("a run of model configurations carries no such label", async () => {
    const { summary, run: dir, stderr } = await run({});
    expect(summary.plumbing).toBeNull();
    expect(summary.tasks[0]!.plumbing).toBe(false);
    expect(stderr).not.toContain("plumbing");
    expect(table1(summary)).not.toContain("plumbing");
    expect(readFileSync(path.join(dir.dir, "report.md"), "utf8")).not.toContain("plumbing");
  });
});
