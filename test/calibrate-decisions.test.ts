// Decisions as the paper takes them: a synthetic batch whose records reproduce the figures its text
// gives (retained at frontier +A 3/5, borderline eliminations at +A 2/5 and mid +A 3/5, +A 0/5
// discarded), --strict, "= 0" clauses in fixed and sequential mode, cells without evidence, and
// `kgate report` printing the borderline flag, the pooled aggregate rows and the interval note.

import { writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  buildPlan,
  CalibrationConfig,
  type ClauseInput,
  type Plan,
  parseRequirement,
  type Requirement,
  runDir,
  sequentialClause,
  summarise,
  tallyRecords,
  wantedTrials,
  writePlan,
} from "../src/calibrate/index.ts";
import type { ProjectPaths } from "../src/project.ts";
import { type TrialRecord, ZERO_USAGE } from "../src/record/index.ts";
import { htmlReport, markdownReport, RunSummary } from "../src/report/index.ts";
import type { LoadedTask } from "../src/task/index.ts";
import {
  jobFor,
  recordFor,
  recordsFromScript,
  resolver,
  scaffoldTasks,
} from "./support/calibrate-fixtures.ts";
import { kgate } from "./support/cli.ts";
import { tempProject } from "./support/project.ts";

/** The paper's cells, by letters per trial (P pass, D/F/X fail, I infrastructure error). */
const CLEAN = { "frontier-A": "DDDDD", "mid+A": "PDDDD", control: "XXXXX" };
const BATCH: Record<string, Record<string, string>> = {
  // Retained at frontier +A 3/5: 3/5 = 0.6 meets ">= 0.6" by the point estimate, by one trial.
  kept: { "frontier+A": "PPPDD", ...CLEAN },
  // The paper's borderline eliminations: +A 2/5 (3/5 would meet) and mid +A 3/5 (2/5 would meet).
  "near-frontier": { "frontier+A": "PPDDD", ...CLEAN },
  "near-mid": { "frontier+A": "PPPPP", ...CLEAN, "mid+A": "PPPDD" },
  // +A 0/5: missed by three trials.
  none: { "frontier+A": "DDDDD", ...CLEAN },
  // One pass without the artefact: solvable without it, whatever else holds.
  leak: { "frontier+A": "PPPPP", ...CLEAN, "frontier-A": "DDPDD" },
  // A cell whose every trial was an infrastructure error: no evidence either way.
  "no-evidence": { "frontier+A": "IIIII", ...CLEAN },
};

function batch(paths: ProjectPaths, config: unknown = {}, runId = "paper-batch") {
  const tasks = scaffoldTasks(paths, Object.keys(BATCH));
  const plan = buildPlan({
    runId,
    createdAt: new Date("2026-12-01T12:00:00Z"),
    config: CalibrationConfig.parse(config),
    tasks,
    resolveAgent: resolver(),
  });
  const records = recordsFromScript(plan, new Map(tasks.map((t) => [t.id, t])), BATCH);
  return { plan, records, tasks, summary: summarise(plan, records, [], new Date("2026-12-01T13:00:00Z")) };
}

const taskOf = (s: RunSummary, id: string) => s.tasks.find((t) => t.id === id)!;

describe("the paper's decisions on a synthetic batch", () => {
  const { summary } = batch(tempProject("file"));

  it("retains 3/5 at frontier +A with the borderline flag", () => {
    const kept = taskOf(summary, "kept");
    expect(kept.decision).toBe("retain");
    expect(kept.borderline).toEqual(["frontier+A 3/5 meets p >= 0.6 by one trial"]);
    expect(kept.reasons[0]).toBe(
      "frontier+A passed 3/5 (60%): meets p(frontier+A) >= 0.6 by one trial (2/5 would not)",
    );
  });

  it("eliminates frontier +A 2/5 and mid +A 3/5 as borderline (revise), +A 0/5 and a -A pass as discard", () => {
    expect(summary.tasks.map((t) => [t.id, t.decision])).toEqual([
      ["kept", "retain"],
      ["near-frontier", "revise"],
      ["near-mid", "revise"],
      ["none", "discard"],
      ["leak", "discard"],
      ["no-evidence", "incomplete"],
    ]);
    expect(taskOf(summary, "near-frontier").reasons).toEqual([
      "borderline: frontier+A passed 2/5 (40%): misses p(frontier+A) >= 0.6 by one trial (3/5 would meet it)",
    ]);
    expect(taskOf(summary, "near-mid").reasons).toEqual([
      "borderline: mid+A passed 3/5 (60%): misses p(mid+A) <= 0.4 by one trial (2/5 would meet it)",
    ]);
    expect(taskOf(summary, "none").reasons).toEqual([
      "frontier+A passed 0/5 (0%): misses p(frontier+A) >= 0.6",
    ]);
    expect(taskOf(summary, "leak").reasons).toEqual([
      "frontier-A passed 1/5 (20%): a pass shows p(frontier-A) > 0, so it misses p(frontier-A) = 0",
    ]);
    // Only retain carries the flag: near-mid's frontier +A 5/5 is not fragile, and revise has none.
    expect(summary.tasks.filter((t) => t.borderline.length > 0).map((t) => t.id)).toEqual(["kept"]);
  });

  it("makes an all-infrastructure cell incomplete, with the resume command, never revise", () => {
    expect(taskOf(summary, "no-evidence").reasons).toEqual([
      "frontier+A has no valid trial (all 5 trial(s) excluded as infrastructure errors or unverified): " +
        "p(frontier+A) >= 0.6 has no evidence either way",
      "resume with  kgate calibrate --resume paper-batch",
    ]);
    // 6 tasks: 1 retain, 2 revise, 2 discard, 1 incomplete.
    expect(summary.totals.decisions).toEqual({ retain: 1, revise: 2, discard: 2, incomplete: 1 });
  });

  it("states a fixed-n '= 0' clause by its point estimate and the exact bound, not as p = 0", () => {
    // 0/5: one-sided 95% upper bound 1 - 0.05^(1/5) = 1 - e^(-2.9957/5) = 1 - 0.5493 = 0.4507 -> 0.451.
    expect(taskOf(summary, "kept").reasons[1]).toBe(
      "frontier-A passed 0/5 (0%): meets p(frontier-A) = 0 by the point estimate (p(frontier-A) < 0.451 at 95%, one-sided)",
    );
  });

  it("shows the flag in Markdown and HTML, and says the aggregate rows pool trials", () => {
    const md = markdownReport(summary);
    expect(md).toContain("| retain (borderline: frontier+A 3/5 meets p >= 0.6 by one trial) |");
    expect(md).toContain("| **all (6 tasks, pooled trials)** |");
    expect(md).toContain("Intervals: Wilson 95%. Aggregate rows pool trials across tasks.");
    const html = htmlReport(summary, { runDirHref: "." });
    expect(html).toContain(
      '<td class="decision retain">retain (borderline: frontier+A 3/5 meets p &gt;= 0.6 by one trial)</td>',
    );
    expect(html).toContain("all (6 tasks, pooled trials)");
  });
});

describe("--strict", () => {
  it("keeps the one-trial rule: a clause met by one trial makes the decision revise", () => {
    const { summary } = batch(tempProject(), { strict: true });
    const kept = taskOf(summary, "kept");
    expect(kept.decision).toBe("revise");
    expect(kept.borderline).toEqual([]);
    expect(kept.reasons).toEqual([
      "borderline: frontier+A passed 3/5 (60%): meets p(frontier+A) >= 0.6 by one trial (2/5 would not)",
    ]);
    // The rest is the same as without --strict.
    expect(taskOf(summary, "near-frontier").decision).toBe("revise");
    expect(taskOf(summary, "none").decision).toBe("discard");
    expect(summary.rule[1]).toMatch(/--strict: a clause that one trial would flip makes the decision revise/);
  });
});

/** One -A cell under sequential screening (n = 3, cap = 5, "= 0") on a scaffolded task. */
function screening(id: string) {
  const paths = tempProject();
  const tasks = scaffoldTasks(paths, [id]);
  const plan = buildPlan({
    runId: id,
    config: CalibrationConfig.parse({
      n: 3,
      sequential: { enabled: true, cap: 5 },
      cells: [{ name: "frontier-A", agent: "frontier", condition: "-A", require: "= 0" }],
    }),
    tasks,
    resolveAgent: resolver(),
  });
  return { plan, byId: new Map(tasks.map((t) => [t.id, t])), records: [] as TrialRecord[] };
}

/** Runs what the policy wants, round after round (at most 20), each trial's record from `make`. */
function screen(
  plan: ReturnType<typeof buildPlan>,
  records: TrialRecord[],
  task: string,
  make: (w: ReturnType<typeof wantedTrials>[number]) => TrialRecord,
): void {
  for (let round = 0; round < 20; round++) {
    const wanted = wantedTrials(plan, tallyRecords(plan, records), task);
    if (wanted.length === 0) return;
    for (const w of wanted) records.push(make(w));
  }
}

describe('"= 0" under sequential screening', () => {
  const ZERO = parseRequirement("= 0") as Requirement;
  const s = CalibrationConfig.parse({ sequential: { enabled: true } }).sequential;
  const clause = (passes: number, runs: number): ClauseInput => ({
    cell: "frontier-A",
    requirement: ZERO,
    control: false,
    passes,
    runs,
    excluded: 0,
  });

  it.each([18, 19, 20])("is not met at 1/%i: a pass shows p > 0", (runs) => {
    const r = sequentialClause(clause(1, runs), s, 20);
    expect(r.verdict).toBe("not-met");
    expect(r.borderline).toBe(false);
    expect(r.reason).toMatch(
      /^frontier-A passed 1\/\d+ \(\d%\): a pass shows p\(frontier-A\) > 0, so it misses/,
    );
  });

  it("is met at 0/14 with the bound in words, and open at 0/13", () => {
    // 1 - 0.05^(1/14) = 1 - e^(-2.9957/14) = 1 - 0.80737 = 0.19263 < 0.2, printed rounded up: 0.193.
    const met = sequentialClause(clause(0, 14), s, 20);
    expect(met.verdict).toBe("met");
    expect(met.reason).toBe(
      "frontier-A passed 0/14 (0%): p(frontier-A) < 0.193 at 95% (one-sided), within the screening bound 0.2",
    );
    expect(met.reason).not.toContain("= 0");
    // 1 - 0.05^(1/13) = 1 - e^(-2.9957/13) = 1 - 0.79418 = 0.20582 > 0.2: not yet.
    const open = sequentialClause(clause(0, 13), s, 20);
    expect(open.verdict).toBe("undecided");
    expect(open.reason).toBe(
      "frontier-A passed 0/13 (0%): p(frontier-A) < 0.206 at 95% (one-sided) so far; " +
        "14 trials without one against it are needed to reach the screening bound 0.2",
    );
    // A cap below 14 leaves it undecided and borderline at the cap.
    expect(sequentialClause(clause(0, 10), s, 10)).toMatchObject({ verdict: "undecided", borderline: true });
  });

  /** Runs the real policy to its end: each wanted trial gets its scripted letter (P pass, else fail). */
  function drive(plan: Plan, tasks: LoadedTask[], script: Record<string, string>): TrialRecord[] {
    const byId = new Map(tasks.map((t) => [t.id, t]));
    const records: TrialRecord[] = [];
    for (let round = 0; round < 100; round++) {
      const wanted = wantedTrials(plan, tallyRecords(plan, records), tasks[0]!.id);
      if (wanted.length === 0) return records;
      for (const w of wanted) {
        const pass = script[w.cell.label]![w.index] === "P";
        const job = jobFor(plan, byId, w.cell, w.index);
        records.push(recordFor(job, pass ? { outcome: "pass" } : { outcome: "fail", attribution: "other" }));
      }
    }
    throw new Error("screening did not stop");
  }

  it("stops a task at the first pass without the artefact and discards it", () => {
    const paths = tempProject();
    const tasks = scaffoldTasks(paths, ["seq"]);
    const plan = buildPlan({
      runId: "seq",
      config: CalibrationConfig.parse({
        sequential: { enabled: true, cap: 20 },
        cells: [
          { name: "frontier+A", agent: "frontier", condition: "+A", require: ">= 0.6" },
          { name: "frontier-A", agent: "frontier", condition: "-A", require: "= 0" },
        ],
      }),
      tasks,
      resolveAgent: resolver(),
    });
    // +A passes every trial (SPRT: 6 passes decide); -A fails 7 times, then passes at index 7.
    const records = drive(plan, tasks, { "frontier+A": "PPPPPPPP", "frontier-A": "DDDDDDDPDD" });
    const minus = records.filter((r) => r.condition === "-A");
    expect(minus).toHaveLength(8);
    const summary = summarise(plan, records);
    expect(summary.tasks[0]!.decision).toBe("discard");
    expect(summary.tasks[0]!.reasons).toEqual([
      "frontier-A passed 1/8 (13%): a pass shows p(frontier-A) > 0, so it misses p(frontier-A) = 0",
    ]);
    expect(summary.rule.join("\n")).toMatch(/naive Wilson 95% intervals/);
  });

  it("stays bounded when every -A trial asks for the specification, and counts none of them as -A", () => {
    const { plan, byId, records } = screening("asks");
    // Every -A trial: REQUEST_SPEC, ran with the artefact, passed. runs stays 0, so without a bound
    // the undecided "= 0" clause would want trials forever; REQUEST_SPEC trials take places of the
    // cap: 3 (first round) + 1 + 1 = 5 trials, then none.
    screen(plan, records, "asks", (w) => {
      const job = jobFor(plan, byId, w.cell, w.index);
      const digest = job.task.digests.artefact;
      const choice = {
        choice: "REQUEST_SPEC" as const,
        turns: [],
        usage: ZERO_USAGE,
        error: null,
        schedule: null,
      };
      const prospective = { ...choice, artefactPlaced: true, placedDigest: digest } as const;
      return {
        ...recordFor(job, { outcome: "pass" }),
        artefactDigest: digest,
        monitor: { retrospective: null, prospective },
      };
    });
    expect(records).toHaveLength(5);
    const summary = summarise(plan, records);
    expect(summary.cells[0]!.counts).toMatchObject({ pass: 0, fail: 0, unverified: 5, runs: 0 });
    expect(summary.trials.map((t) => t.outcome)).toEqual(Array(5).fill("unverified"));
    expect(summary.tasks[0]!.decision).toBe("incomplete");
    expect(summary.warnings.join("\n")).toMatch(/^5 -A trial\(s\) chose REQUEST_SPEC/m);
  });

  it("stays bounded when trials past the first round come back unverified", () => {
    const { plan, byId, records } = screening("flaky");
    // The first round fails 3/3 (0/3 leaves "= 0" undecided), then every trial is unverified: runs
    // stays 3, so a cap on runs alone would want trials forever; unverified ones take places of the
    // cap: 3 + 1 + 1 = 5 trials, then none.
    screen(plan, records, "flaky", (w) =>
      recordFor(jobFor(plan, byId, w.cell, w.index), { outcome: w.index < 3 ? "fail" : "unverified" }),
    );
    expect(records.map((r) => r.index)).toEqual([0, 1, 2, 3, 4]);
    expect(summarise(plan, records).cells[0]!.counts).toMatchObject({ fail: 3, unverified: 2, runs: 3 });
  });
});

describe("kgate report on the batch", () => {
  it("decides by the plan's --strict rule", () => {
    const paths = tempProject();
    const { plan, records } = batch(paths, { strict: true }, "strict-batch");
    const run = runDir(paths, plan.runId);
    writePlan(run, plan);
    writeFileSync(run.trials, records.map((r) => `${JSON.stringify(r)}\n`).join(""));
    const json = kgate(["--root", paths.root, "report", "strict-batch", "--json"]);
    expect(json.code).toBe(0);
    const summary = RunSummary.parse(JSON.parse(json.stdout));
    expect([taskOf(summary, "kept").decision, taskOf(summary, "kept").borderline]).toEqual(["revise", []]);
  });

  it("prints the flag, the incomplete cell's resume command and the interval note", () => {
    const paths = tempProject();
    const { plan, records } = batch(paths, {}, "cli-batch");
    const run = runDir(paths, plan.runId);
    writePlan(run, plan);
    writeFileSync(run.trials, records.map((r) => `${JSON.stringify(r)}\n`).join(""));
    const text = kgate(["--root", paths.root, "report", "cli-batch"]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("| retain (borderline: frontier+A 3/5 meets p >= 0.6 by one trial) |");
    expect(text.stdout).toContain("resume with  kgate calibrate --resume cli-batch");
    expect(text.stdout).toContain("Aggregate rows pool trials across tasks.");
    // A resumed run keeps its plan's rule: --strict cannot change it.
    const refused = kgate(["--root", paths.root, "calibrate", "--resume", "cli-batch", "--strict"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("--resume keeps the run's own plan; --strict cannot change it");
    const json = kgate(["--root", paths.root, "report", "cli-batch", "--json"]);
    const summary = RunSummary.parse(JSON.parse(json.stdout));
    expect(taskOf(summary, "kept").borderline).toEqual(["frontier+A 3/5 meets p >= 0.6 by one trial"]);
  });
});
