// Calibration fidelity (issue 30, items 9-14): a decision other than discard needs n valid trials in
// every cell; the control sentence states its test; spent and latest-attempt tokens and cost; the
// report's notes on retained-set intervals and per-task "= 0" bounds; plan.json's settings digest.
import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  type Backend,
  buildPlan,
  CalibrationConfig,
  type CalibrationConfigInput,
  type CellJob,
  calibrate,
  decide,
  fixedClause,
  type Requirement,
  runDir,
  summarise,
  writePlan,
} from "../src/calibrate/index.ts";
import { fisherExactGreater } from "../src/common/index.ts";
import type { ProjectPaths } from "../src/project.ts";
import { htmlReport, markdownReport, RunSummary } from "../src/report/index.ts";
import {
  agentInfo,
  type FakeRunnerOptions,
  fakeRunner,
  recordsFromScript,
  resolver,
  scaffoldTasks,
} from "./support/calibrate-fixtures.ts";
import { kgateInProcess } from "./support/cli-in-process.ts";
import { tempProject } from "./support/project.ts";
import { TextSink } from "./support/text-sink.ts";

/** Agents frontier (anthropic) and mid (openai); each trial by the fake runner options `pick` gives it. */
function backend(pick: (job: CellJob) => FakeRunnerOptions): Backend {
  return {
    agents: async (names) =>
      new Map(
        names
          .filter((n) => ["frontier", "mid"].includes(n))
          .map((n) => [n, agentInfo(n, n === "frontier" ? "anthropic" : "openai")]),
      ),
    start: async () => ({
      runner: (job, signal) => fakeRunner(pick(job))(job, signal),
      stop: async () => {},
    }),
  };
}

function options(paths: ProjectPaths, config: CalibrationConfigInput, extra: Record<string, unknown> = {}) {
  const stderr = new TextSink();
  return {
    stderr,
    options: {
      paths,
      config: CalibrationConfig.parse({ curtail: false, ...config }),
      taskIds: [],
      stderr,
      live: false,
      ...extra,
    },
  };
}

/** Every cell of the paper's rule passing as a clearly gated task would. */
const GATED = { pass: { "frontier+A": 1, "frontier-A": 0, "mid+A": 0, control: 0 } };

/** A batch of scripted records (P pass, D/X fail, I infrastructure error) summarised under the default rule. */
function scripted(script: Record<string, Record<string, string>>, runId = "short-batch") {
  const paths = tempProject();
  const tasks = scaffoldTasks(paths, Object.keys(script));
  const plan = buildPlan({
    runId,
    createdAt: new Date("2026-12-01T12:00:00Z"),
    config: CalibrationConfig.parse({}),
    tasks,
    resolveAgent: resolver(),
  });
  const records = recordsFromScript(plan, new Map(tasks.map((t) => [t.id, t])), script);
  return { paths, plan, records, summary: summarise(plan, records, [], new Date("2026-12-01T13:00:00Z")) };
}

describe("item 9: a decision other than discard needs n valid trials in every cell", () => {
  it("leaves a task incomplete, with the resume command, when 4 of 5 trials of every cell ended as exhausted infra errors; the resume decides it", async () => {
    const paths = tempProject();
    scaffoldTasks(paths, ["thin"]);
    // Index 0 of every cell runs; every attempt of indices 1-4 is an infrastructure error (the
    // default infraRetries 2: 3 attempts each, then given up for the session).
    const first = options(paths, {}, { runId: "thin-run" });
    const s1 = await calibrate(
      first.options,
      backend((job) => ({ ...GATED, infra: job.index >= 1 ? 1 : 0 })),
    );
    const task = s1.summary.tasks[0]!;
    // Before the fix: retain (borderline: frontier+A 1/1 ...), "= 0" met at 0/1.
    expect(task.decision).toBe("incomplete");
    expect(task.reasons).toEqual([
      "frontier+A passed 1/1 (100%), 4 valid trial(s) short of n = 5 (4 trial(s) excluded as infrastructure errors or unverified): too few valid trials to judge p(frontier+A) >= 0.6",
      "frontier-A passed 0/1 (0%), 4 valid trial(s) short of n = 5 (4 trial(s) excluded as infrastructure errors or unverified): too few valid trials to judge p(frontier-A) = 0",
      "mid+A passed 0/1 (0%), 4 valid trial(s) short of n = 5 (4 trial(s) excluded as infrastructure errors or unverified): too few valid trials to judge p(mid+A) <= 0.4",
      "control passed 0/1 (0%), 4 valid trial(s) short of n = 5 (4 trial(s) excluded as infrastructure errors or unverified): too few valid trials to judge p(control) = 0",
      "resume with  kgate calibrate --resume thin-run",
    ]);
    expect(s1.summary.cells.map((c) => c.clause?.short)).toEqual([4, 4, 4, 4]);
    expect(s1.summary.totals.decisions.incomplete).toBe(1);
    // The command it names runs the 16 given-up trials again; with them valid, the task is decided.
    const second = options(paths, {}, { resume: "thin-run" });
    const s2 = await calibrate(
      second.options,
      backend(() => GATED),
    );
    expect(s2.engine.written).toHaveLength(16);
    expect(s2.summary.tasks[0]!.decision).toBe("retain");
  });

  it("discards a short cell only when every outcome of its missing trials misses the clause", () => {
    const { summary } = scripted({
      // frontier+A 0/4 + one infra error: at best 1/5, which misses >= 0.6 by more than one trial.
      hopeless: { "frontier+A": "DDDDI", "frontier-A": "DDDDD", "mid+A": "DDDDD", control: "XXXXX" },
      // frontier+A 0/2 + three infra errors: 3/5 is still possible, so nothing is decided yet.
      open: { "frontier+A": "DDIII", "frontier-A": "DDDDD", "mid+A": "DDDDD", control: "XXXXX" },
      // A pass without the artefact settles "= 0" whatever else comes: discard on 1/2.
      leak: { "frontier+A": "PPPPP", "frontier-A": "PDIII", "mid+A": "DDDDD", control: "XXXXX" },
    });
    const of = (id: string) => summary.tasks.find((t) => t.id === id)!;
    expect(of("hopeless").decision).toBe("discard");
    expect(of("hopeless").reasons).toEqual([
      "frontier+A passed 0/4 (0%), 1 valid trial(s) short of n = 5: misses p(frontier+A) >= 0.6 whatever the missing trial(s) show (at best 1/5)",
    ]);
    expect(of("open").decision).toBe("incomplete");
    expect(of("open").reasons.at(-1)).toBe("resume with  kgate calibrate --resume short-batch");
    expect(of("leak").decision).toBe("discard");
    expect(of("leak").reasons).toEqual([
      "frontier-A passed 1/2 (50%): a pass shows p(frontier-A) > 0, so it misses p(frontier-A) = 0",
    ]);
  });

  it("kgate report prints the short cell's reason and the resume command", async () => {
    const { paths, plan, records } = scripted(
      { thin: { "frontier+A": "PIIII", "frontier-A": "DIIII", "mid+A": "DIIII", control: "XIIII" } },
      "thin-report",
    );
    const run = runDir(paths, plan.runId);
    writePlan(run, plan);
    writeFileSync(run.trials, records.map((r) => `${JSON.stringify(r)}\n`).join(""));
    const json = await kgateInProcess(["--root", paths.root, "report", "thin-report", "--json"]);
    expect(json.code).toBe(0);
    const summary = RunSummary.parse(JSON.parse(json.stdout));
    expect(summary.tasks[0]!.decision).toBe("incomplete");
    expect(summary.tasks[0]!.borderline).toEqual([]);
    const text = await kgateInProcess(["--root", paths.root, "report", "thin-report"]);
    expect(text.stdout).toContain("resume with  kgate calibrate --resume thin-report");
    expect(text.stdout).toContain("4 valid trial(s) short of n = 5");
  });
});

describe("item 11: spent tokens and cost (every attempt) beside the latest attempt's", () => {
  it("reports both, labelled, after retries and a resume, and progress agrees with the report", async () => {
    const paths = tempProject();
    scaffoldTasks(paths, ["spend"]);
    // n = 2, four cells. Session 1: every attempt of index 1 is an infrastructure error (3 attempts
    // each, infraRetries 2): 4 valid + 12 infra attempts. Session 2 (resume): the 4 index-1 trials pass
    // or fail validly: 4 more attempts. Each attempt costs 1,000 in + 200 out = 1,200 tokens, $0.01.
    const first = options(paths, { n: 2 }, { runId: "spend-run" });
    await calibrate(
      first.options,
      backend((job) => ({ ...GATED, infra: job.index === 1 ? 1 : 0 })),
    );
    const second = options(paths, { n: 2 }, { resume: "spend-run" });
    const s2 = await calibrate(
      second.options,
      backend(() => GATED),
    );
    // Spent: 4 + 12 + 4 = 20 attempts = 24,000 tokens (20,000 in, 4,000 out), $0.20.
    // Latest attempt of each of the 8 trials: 9,600 tokens (8,000 in, 1,600 out), $0.08.
    expect(s2.summary.totals.spent).toMatchObject({
      inputTokens: 20_000,
      outputTokens: 4_000,
      modelCalls: 60,
    });
    expect(s2.summary.totals.spent!.costUsd).toBeCloseTo(0.2, 10);
    expect(s2.summary.totals.usage).toMatchObject({ inputTokens: 8_000, outputTokens: 1_600 });
    expect(s2.summary.totals.usage.costUsd).toBeCloseTo(0.08, 10);
    const md = readFileSync(`${s2.run.dir}/report.md`, "utf8") as string;
    expect(md).toContain(
      "tokens as the token budget counts them: spent (every attempt): 24,000 tokens (20,000 in · 4,000 out · 0 cache read · 0 cache write), cost $0.20; " +
        "latest attempt of each trial: 9,600 tokens (8,000 in · 1,600 out · 0 cache read · 0 cache write), cost $0.08",
    );
    const html = readFileSync(`${s2.run.dir}/report.html`, "utf8") as string;
    expect(html).toContain("spent (every attempt): 24,000 tokens");
    // The resumed session's progress totals count the run's spend, every attempt, as the report does;
    // frontier+A passes its 2 trials, the other 6 trials fail.
    expect(second.stderr.text.trimEnd().split("\n").at(-1)).toBe(
      "trials 8/8 · pass 2 · fail 6 · infra 0 · running 0 · spent 24.0k tokens · $0.20",
    );
  });
});

describe("item 10: the control sentence states its comparison and test", () => {
  const AT_LEAST_60 = { op: ">=", threshold: 0.6 } as const;
  const ZERO = { op: "<=", threshold: 0 } as const;
  const ctx = { pending: null, strict: false, resume: "kgate calibrate --resume r" };
  const clause = (cell: string, requirement: Requirement, passes: number, control = false) =>
    fixedClause({ cell, requirement, control, passes, runs: 5, excluded: 0 });

  it("computes the one-sided Fisher exact test by hand", () => {
    // 3/5 vs 0/5: margins K = 3 successes of N = 10, first group n1 = 5. Only x = 3 is as extreme:
    // C(3,3) C(7,2) / C(10,5) = 1 * 21 / 252 = 0.08333.
    expect(fisherExactGreater(3, 5, 0, 5)).toBeCloseTo(21 / 252, 12);
    expect(fisherExactGreater(3, 5, 0, 5)).toBeCloseTo(0.0833, 4);
    // 5/5 vs 0/5: C(5,5) C(5,0) / C(10,5) = 1/252 = 0.003968.
    expect(fisherExactGreater(5, 5, 0, 5)).toBeCloseTo(1 / 252, 12);
    // 2/5 vs 1/5: K = 3; x = 2: C(3,2) C(7,3) / 252 = 3 * 35 / 252; x = 3: 21/252; sum 126/252 = 0.5.
    expect(fisherExactGreater(2, 5, 1, 5)).toBeCloseTo(0.5, 12);
  });

  it("claims content-tracking only when +A beats the control significantly", () => {
    const weak = decide(
      [clause("frontier+A", AT_LEAST_60, 3), clause("frontier-A", ZERO, 0), clause("control", ZERO, 0, true)],
      ctx,
    );
    // Before the fix: "..., so success tracks the artefact's content, not its presence".
    expect(weak.reasons.at(-1)).toBe(
      "control passed 0/5 (0%): meets p(control) = 0 by the point estimate (p(control) < 0.451 at 95%, one-sided); " +
        "frontier+A 3/5 vs control 0/5: one-sided Fisher exact p = 0.0833, not significant at 0.05, " +
        "so this does not show that success tracks the artefact's content",
    );
    const strong = decide(
      [clause("frontier+A", AT_LEAST_60, 5), clause("frontier-A", ZERO, 0), clause("control", ZERO, 0, true)],
      ctx,
    );
    expect(strong.reasons.at(-1)).toMatch(
      /; frontier\+A 5\/5 vs control 0\/5: one-sided Fisher exact p = 0\.00397 < 0\.05, so success tracks the artefact's content, not its presence$/,
    );
  });
});

describe("item 14: plan.json carries a digest of its decision settings", () => {
  it("kgate report and --resume refuse a plan whose strict flag was edited by hand, naming the file and field", async () => {
    const { paths, plan, records } = scripted(
      { edited: { "frontier+A": "PPPDD", "frontier-A": "DDDDD", "mid+A": "DDDDD", control: "XXXXX" } },
      "edited-run",
    );
    expect(plan.settingsDigest).toMatch(/^[0-9a-f]{64}$/);
    const run = runDir(paths, plan.runId);
    writePlan(run, plan);
    writeFileSync(run.trials, records.map((r) => `${JSON.stringify(r)}\n`).join(""));
    expect((await kgateInProcess(["--root", paths.root, "report", "edited-run", "--json"])).code).toBe(0);
    // The hand edit: strict false -> true (it would turn the 3/5 retain into revise).
    const json = JSON.parse(readFileSync(run.plan, "utf8"));
    json.strict = true;
    writeFileSync(run.plan, JSON.stringify(json, null, 2));
    const report = await kgateInProcess(["--root", paths.root, "report", "edited-run"]);
    expect(report.code).toBe(2);
    expect(report.stderr).toMatch(
      /runs\/edited-run\/plan\.json: settingsDigest: the plan's decision settings \(mode, n, sequential, infraRetries, strict, specs, cells\) no longer match/,
    );
    const resume = await kgateInProcess(["--root", paths.root, "calibrate", "--resume", "edited-run"]);
    expect(resume.code).toBe(2);
    expect(resume.stderr).toContain("plan.json: settingsDigest:");
    // Restored, it reads again.
    json.strict = false;
    writeFileSync(run.plan, JSON.stringify(json, null, 2));
    expect((await kgateInProcess(["--root", paths.root, "report", "edited-run", "--json"])).code).toBe(0);
  });
});

describe("item 12: the report's notes say what the retained row and the per-task bounds do not show", () => {
  it("notes the selection of the retained row and the joint coverage of the '= 0' bounds", () => {
    const gated = { "frontier+A": "PPPPP", "frontier-A": "DDDDD", "mid+A": "DDDDD", control: "XXXXX" };
    const { summary } = scripted({ a: gated, b: gated, c: gated, gone: { ...gated, "frontier+A": "DDDDD" } });
    expect(summary.totals.decisions.retain).toBe(3);
    // 3 retained tasks x 2 met "= 0" clauses (frontier-A, control) = 6 bounds at 95% each; together
    // 0.95^6 = (0.95^3)^2 = 0.857375^2 = 0.735092 -> 73.5%.
    expect(summary.caveats).toEqual([
      'the "retained (3 tasks)" row\'s intervals are computed on the same trials that selected those tasks: ' +
        "they are not evidence of the retained set's pass rates (as the paper, which gives no retained-set figures as evidence); " +
        "only a fresh batch of trials on those tasks would be",
      'each met "= 0" clause\'s one-sided 95% bound holds per task, not jointly: for all 6 of them (3 retained tasks) at once, ' +
        "about 0.95^6 = 73.5% if the cells are independent",
    ]);
    const md = markdownReport(summary);
    expect(md).toContain("## Notes");
    expect(md).toContain('- each met "= 0" clause\'s one-sided 95% bound holds per task, not jointly');
    expect(htmlReport(summary, {})).toContain("about 0.95^6 = 73.5% if the cells are independent");
  });
});
