// The cost ceiling (--max-cost, src/calibrate/budget.ts over src/cost): a trial's worst case from the token caps at
// the prices; a session that stops placing trials before the ceiling, leaves the short task incomplete
// and states spent / reserved / ceiling in summary.json; a resume with a higher ceiling finishes it.
// Trials come from the in-process scripted runner (fixed costs per record), not a model.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  type Backend,
  buildPlan,
  CalibrationConfig,
  CalibrationError,
  type CellJob,
  calibrate,
  chargedUsd,
  spentUsd,
  summariseRun,
} from "../src/calibrate/index.ts";
import { type CostCaps, worstCaseUsd } from "../src/cost/index.ts";
import { table1 } from "../src/report/index.ts";
import { readTrialRecords } from "../src/trial/index.ts";
import { agentInfo, fakeRunner, jobFor, recordFor, scaffoldTasks } from "./support/calibrate-fixtures.ts";
import { kgate } from "./support/cli.ts";
import { tempProject } from "./support/project.ts";
import { TextSink } from "./support/text-sink.ts";

const backend: Backend = {
  agents: async (names) =>
    new Map(names.map((n) => [n, agentInfo(n, n === "frontier" ? "anthropic" : "openai")])),
  start: async () => ({
    runner: (job: CellJob, signal: AbortSignal) =>
      fakeRunner({ pass: { "frontier+A": 1, "frontier-A": 0, "mid+A": 0, control: 0 } })(job, signal),
    stop: async () => {},
  }),
};

describe("worst case of a trial", () => {
  const caps: CostCaps = {
    harness: "builtin",
    tokenBudget: 100_000,
    maxTurns: 10,
    maxOutputTokens: 2000,
    pricing: { inputPerMTok: 3, outputPerMTok: 15, cacheReadPerMTok: 0.3, cacheWritePerMTok: 3.75 },
  };
  it("puts as many tokens as the caps allow at the output price and the rest at the dearest input price", () => {
    // output <= 10 turns x 2000 = 20,000 tokens; 20,000 x $15/M + 80,000 x $3.75/M = 0.30 + 0.30
    expect(worstCaseUsd(caps, 500_000)).toBeCloseTo(0.6, 10);
    // the task's maxTokens 50,000 binds: 20,000 x 15/M + 30,000 x 3.75/M = 0.30 + 0.1125
    expect(worstCaseUsd(caps, 50_000)).toBeCloseTo(0.4125, 10);
    // an output budget of 1000 tokens: 1000 x 15/M + 99,000 x 3.75/M = 0.015 + 0.37125
    expect(worstCaseUsd({ ...caps, outputTokenBudget: 1000 }, 500_000)).toBeCloseTo(0.38625, 10);
    expect(worstCaseUsd({ ...caps, pricing: null }, 500_000)).toBeNull();
    // an installed harness's calls without tools are no turns: all 100,000 tokens output, x $15/M
    expect(worstCaseUsd({ ...caps, harness: "claude-code" }, 500_000)).toBeCloseTo(1.5, 10);
  });
});

describe("what a trial is charged against the ceiling", () => {
  it("is the record's charged usage plus its judges', or the cell's worst case when unknown", () => {
    const paths = tempProject();
    const tasks = scaffoldTasks(paths, ["alpha"]);
    const base = buildPlan({
      runId: "c",
      config: CalibrationConfig.parse({}),
      tasks,
      resolveAgent: (n) => agentInfo(n),
    });
    const cell = base.cells[0]!;
    const plan = { ...base, ceiling: { usd: 1, worstCaseUsd: { [cell.key]: 0.25 } } };
    const job = jobFor(plan, new Map(tasks.map((t) => [t.id, t])), cell, 0);
    const record = recordFor(job, { outcome: "pass", costUsd: 0.02 });
    expect(chargedUsd(plan, record)).toBeCloseTo(0.02, 12);
    // a judge's calls are spent too: 0.02 + 0.01
    const judged = { ...record, judgeUsage: { ...record.usage, modelCalls: 1, costUsd: 0.01 } };
    expect(chargedUsd(plan, judged)).toBeCloseTo(0.03, 12);
    // no cost recorded: charged at the cell's worst case; spent sums both: 0.25 + 0.03
    const unknown = recordFor(job, { outcome: "pass", costUsd: null });
    expect(chargedUsd(plan, unknown)).toBe(0.25);
    expect(spentUsd(plan, [unknown, judged])).toBeCloseTo(0.28, 12);
  });
});

describe("--max-cost in a session", () => {
  // Worst case: 1,000,000 tokens capped by the task's maxTokens 500,000, all at $0.5/M = $0.25.
  const caps = (): CostCaps => ({
    tokenBudget: 1_000_000,
    maxTurns: 1,
    maxOutputTokens: 1,
    pricing: { inputPerMTok: 0.5, outputPerMTok: 0.5 },
  });

  it("starts no trial whose worst case would cross the ceiling; a plain resume keeps it, --max-cost <more> finishes the run", async () => {
    const paths = tempProject();
    scaffoldTasks(paths, ["alpha"]);
    const config = CalibrationConfig.parse({ curtail: false, concurrency: 1 });
    const stderr = new TextSink();
    const base = { paths, config, taskIds: [], stderr, live: false };
    const first = await calibrate({ ...base, runId: "b1", maxCost: { ceilingUsd: 0.3, caps } }, backend);
    // Each record costs $0.01 (the fixture's default). One at a time, trial k+1 starts while
    // 0.01 k + 0.25 <= 0.30, i.e. k <= 5: six trials run, the seventh is refused.
    expect(first.engine.written).toHaveLength(6);
    expect(first.summary.tasks[0]!.decision).toBe("incomplete");
    // The ceiling is part of the plan, with each cell's worst case.
    const plan = JSON.parse(readFileSync(path.join(first.run.dir, "plan.json"), "utf8"));
    expect(plan.ceiling.usd).toBe(0.3);
    expect(Object.values(plan.ceiling.worstCaseUsd)).toEqual([0.25, 0.25, 0.25, 0.25]);
    expect(first.summary.budget?.ceilingUsd).toBe(0.3);
    expect(first.summary.budget?.spentUsd).toBeCloseTo(0.06, 10);
    expect(first.summary.budget?.reservedUsd).toBe(0);
    // Index-major order: #0 of the four cells, then #1 of frontier+A and frontier-A; the other 14 are
    // listed by cell (3 + 3 + 4 + 4).
    expect(first.summary.budget!.refused).toEqual([
      { task: "alpha", cell: "frontier+A", trials: [2, 3, 4], worstCaseUsd: 0.25 },
      { task: "alpha", cell: "frontier-A", trials: [2, 3, 4], worstCaseUsd: 0.25 },
      { task: "alpha", cell: "mid+A", trials: [1, 2, 3, 4], worstCaseUsd: 0.25 },
      { task: "alpha", cell: "control", trials: [1, 2, 3, 4], worstCaseUsd: 0.25 },
    ]);
    const json = JSON.parse(readFileSync(path.join(first.run.dir, "summary.json"), "utf8"));
    expect(json.budget.spentUsd).toBeCloseTo(0.06, 10);
    expect(json.warnings.join("\n")).toContain("--max-cost <more than $0.3>");

    // A plain resume (as the CLI passes it: prices, no --max-cost) keeps the ceiling: nothing fits.
    const plain = await calibrate({ ...base, resume: "b1", maxCost: { caps } }, backend);
    expect(plain.engine.written).toHaveLength(0);
    expect(plain.summary.budget?.ceilingUsd).toBe(0.3);
    expect(plain.summary.budget!.refused.flatMap((r) => r.trials)).toHaveLength(14);
    // ... and so does one without prices at hand: the plan's worst cases stand.
    const bare = await calibrate({ ...base, resume: "b1" }, backend);
    expect(bare.engine.written).toHaveLength(0);
    expect(bare.summary.budget?.spentUsd).toBeCloseTo(0.06, 10);

    const second = await calibrate({ ...base, resume: "b1", maxCost: { ceilingUsd: 10, caps } }, backend);
    // 4 cells x 5 = 20 trials; 14 were left. Spent counts the first session's six too: 20 x 0.01.
    expect(second.engine.written).toHaveLength(14);
    expect(second.summary.tasks[0]!.decision).toBe("retain");
    expect(second.summary.budget).toMatchObject({ ceilingUsd: 10, reservedUsd: 0, refused: [] });
    expect(second.summary.budget?.spentUsd).toBeCloseTo(0.2, 10);
    expect(JSON.parse(readFileSync(path.join(first.run.dir, "plan.json"), "utf8")).ceiling.usd).toBe(10);
    expect(readTrialRecords(first.run.dir).records).toHaveLength(20);
  });

  it("says which trials of which cells the ceiling held back, in the reasons, Table 1 and the HTML page", async () => {
    const paths = tempProject();
    scaffoldTasks(paths, ["alpha"]);
    const config = CalibrationConfig.parse({ curtail: false, concurrency: 1 });
    const base = { paths, config, taskIds: [], stderr: new TextSink(), live: false };
    // 0 + 0.25 <= 0.255 starts frontier+A #0; then 0.01 + 0.25 = 0.26 > 0.255: nothing else fits.
    const run = await calibrate({ ...base, runId: "b3", maxCost: { ceilingUsd: 0.255, caps } }, backend);
    expect(run.engine.written).toHaveLength(1);
    const task = run.summary.tasks[0]!;
    expect(task.decision).toBe("incomplete");
    // 20 - 1 = 19 trials held back; $0.255 - $0.01 = $0.245 left, under the $0.25 worst case.
    expect(task.reasons[0]).toBe(
      "cost ceiling $0.255 (spent $0.01, $0.245 left): 19 trial(s) not started: frontier+A #1-#4, " +
        "frontier-A #0-#4, mid+A #0-#4, control #0-#4 (frontier+A, frontier-A, mid+A, control: a trial " +
        "could cost up to $0.25, more than is left)",
    );
    // A cell the ceiling kept from every trial says so, never "no trial yet".
    expect(task.reasons).toContain(
      "mid+A has no valid trial (5 not started because of the cost ceiling): p(mid+A) <= 0.4 has no evidence either way",
    );
    expect(task.reasons.join("\n")).toContain(
      "frontier+A passed 1/1 (100%), 4 valid trial(s) short of n = 5 (4 not started because of the cost ceiling)",
    );
    expect(task.reasons.at(-1)).toBe(
      "resume with  kgate calibrate --resume b3 --max-cost <more than $0.255>",
    );
    expect(JSON.stringify(run.summary)).not.toContain("no trial yet");
    expect(JSON.stringify(run.summary)).not.toContain("have not run yet");
    const counts = (label: string) => run.summary.cells.find((c) => c.label === label)!.counts;
    expect(counts("frontier+A")).toMatchObject({ runs: 1, missing: 0, refused: 4 });
    expect(counts("mid+A")).toMatchObject({ runs: 0, missing: 0, refused: 5 });
    const table = table1(run.summary);
    // Wilson 95% for 1/1: [1 / (1 + 1.96^2), 1] = [1 / 4.8416, 1] = [0.207, 1]
    expect(table).toContain("1/1 (100%) [21, 100] +4 not started (cost ceiling)");
    expect(table).toContain("0/0 (n/a) +5 not started (cost ceiling)");
    const html = readFileSync(path.join(run.run.dir, "report.html"), "utf8");
    expect(html).toContain("+5 not started (cost ceiling)");
    expect(html).toContain("19 trial(s) not started: frontier+A #1-#4");
    // kgate report reads the same from the run's files alone.
    expect(summariseRun(run.run).budget).toEqual(run.summary.budget);
  });

  it("under curtailment holds a task whose next trial does not fit, and says so of all its trials", async () => {
    const paths = tempProject();
    scaffoldTasks(paths, ["alpha"]);
    const config = CalibrationConfig.parse({ concurrency: 1 });
    const base = { paths, config, taskIds: [], stderr: new TextSink(), live: false };
    // Curtailment runs the task's judged cells one trial at a time: the first fits ($0.25 <= $0.255),
    // then $0.01 + $0.25 = $0.26 does not, whichever cell is next: the other 19 of 4 x 5 are held.
    const run = await calibrate({ ...base, runId: "b4", maxCost: { ceilingUsd: 0.255, caps } }, backend);
    expect(run.engine.written).toHaveLength(1);
    const task = run.summary.tasks[0]!;
    expect(task.decision).toBe("incomplete");
    expect(task.reasons[0]).toMatch(
      /^cost ceiling \$0\.255 \(spent \$0\.01, \$0\.245 left\): 19 trial\(s\) not started: /,
    );
    expect(run.summary.budget!.refused.flatMap((r) => r.trials)).toHaveLength(19);
    expect(run.summary.cells.reduce((s, c) => s + c.counts.refused, 0)).toBe(19);
    expect(run.summary.cells.reduce((s, c) => s + c.counts.missing + c.counts.curtailed, 0)).toBe(0);
    expect(JSON.stringify(run.summary)).not.toContain("no trial yet");
  });

  it("refuses a ceiling it cannot keep: an agent configuration without prices, named", async () => {
    const paths = tempProject();
    scaffoldTasks(paths, ["alpha"]);
    const stderr = new TextSink();
    const run = calibrate(
      {
        paths,
        config: CalibrationConfig.parse({}),
        taskIds: [],
        stderr,
        live: false,
        runId: "b2",
        maxCost: {
          ceilingUsd: 1,
          caps: (agent) => (agent === "mid" ? { ...caps(), pricing: null } : caps()),
        },
      },
      backend,
    );
    await expect(run).rejects.toThrow(CalibrationError);
    await expect(run).rejects.toThrow(/mid have no "pricing"/);
    // refused before the run directory is made
    expect(existsSync(path.join(paths.runs, "b2"))).toBe(false);
  });
});

describe("--max-cost and --no-curtail on the command line", () => {
  it("refuses an amount that is not one, and --no-curtail on a resume, with exit 2", () => {
    const paths = tempProject();
    scaffoldTasks(paths, ["alpha"]);
    const bad = kgate(["--root", paths.root, "calibrate", "--max-cost", "lots"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('kgate: --max-cost: "lots" is not an amount in USD (e.g. 25 or 2.5)\n');
    const resume = kgate(["--root", paths.root, "calibrate", "--resume", "r", "--no-curtail"]);
    expect(resume.code).toBe(2);
    expect(resume.stderr).toContain("--resume keeps the run's own plan; --no-curtail cannot change it");
  });
});
