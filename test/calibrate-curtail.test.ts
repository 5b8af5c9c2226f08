// Curtailment (src/calibrate/curtail.ts) through the calibration engine: on every outcome sequence of
// a small cell set, the curtailed run and the full run give the same decision, borderline flag and
// revise/discard, at fixed n and under --sequential (every path of added trials up to a small cap);
// skipped trials are not run, and a curtailed task says why. The runner is scripted
// (an in-process function returning records of fixed outcomes), not a model.
import { mkdirSync } from "node:fs";
import path from "node:path";
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import {
  buildPlan,
  CalibrationConfig,
  type CalibrationConfigInput,
  type CellRunner,
  Curtailer,
  type Plan,
  Progress,
  runCalibration,
  summarise,
  tallyRecords,
} from "../src/calibrate/index.ts";
import type { TrialRecord } from "../src/record/index.ts";
import { table1 } from "../src/report/index.ts";
import type { LoadedTask } from "../src/task/index.ts";
import { recordFor, recordsFromScript, resolver, scaffoldTasks } from "./support/calibrate-fixtures.ts";
import { taskExpectations } from "./support/curtail-expectation.ts";
import { tempProject } from "./support/project.ts";

const THREE_CELLS = [
  { name: "frontier+A", agent: "frontier", condition: "+A", require: ">= 0.6" },
  { name: "frontier-A", agent: "frontier", condition: "-A", require: "= 0" },
  { name: "mid+A", agent: "mid", condition: "+A", require: "<= 0.4" },
] as const;

interface Fixture {
  plan: (curtail: boolean) => Plan;
  tasks: Map<string, LoadedTask>;
  runDir: string;
}

function fixture(config: CalibrationConfigInput): Fixture {
  const paths = tempProject();
  const loaded = scaffoldTasks(paths, ["t"]);
  const runDir = path.join(paths.runs, "run-1");
  mkdirSync(runDir, { recursive: true });
  return {
    plan: (curtail) =>
      buildPlan({
        runId: "run-1",
        config: CalibrationConfig.parse({ ...config, curtail }),
        tasks: loaded,
        resolveAgent: resolver(),
      }),
    tasks: new Map(loaded.map((t) => [t.id, t])),
    runDir,
  };
}

/** A runner whose outcome per cell label and index comes from `script` (P pass, F fail); writes no file. */
function scripted(script: Record<string, string>, ran: string[]): CellRunner {
  return async (job) => {
    ran.push(`${job.cell.label}#${job.index}`);
    const letter = script[job.cell.label]![job.index];
    return recordFor(job, { outcome: letter === "P" ? "pass" : "fail", attribution: "other" });
  };
}

async function calibrated(f: Fixture, curtail: boolean, script: Record<string, string>) {
  const plan = f.plan(curtail);
  const ran: string[] = [];
  const result = await runCalibration({
    plan,
    runDir: f.runDir,
    tasks: f.tasks,
    runner: scripted(script, ran),
    records: [],
    concurrency: 1,
  });
  const summary = summarise(plan, result.written);
  const task = summary.tasks[0]!;
  return { task, ran, result, summary };
}

/** Every assignment of P/F to `cells` cells of `n` trials, as scripts per label. */
function* everySequence(labels: readonly string[], n: number): Generator<Record<string, string>> {
  const bits = labels.length * n;
  for (let m = 0; m < 2 ** bits; m++) {
    const script: Record<string, string> = {};
    labels.forEach((label, c) => {
      let s = "";
      for (let i = 0; i < n; i++) s += (m >> (c * n + i)) & 1 ? "P" : "F";
      script[label] = s;
    });
    yield script;
  }
}

/** Curtailed vs full on every outcome sequence; `length`: trials a cell can run (n, or the screening cap). */
async function proveEquivalence(config: CalibrationConfigInput, labels: string[], n: number, length = n) {
  const f = fixture({ ...config, n });
  let full = 0;
  let curtailedTrials = 0;
  let sequences = 0;
  const mismatches: string[] = [];
  const decisions = new Set<string>();
  /** Each sequence's letters and the curtailed run's trial count, to weigh by any pass rates. */
  const paths: { script: Record<string, string>; trials: number }[] = [];
  for (const script of everySequence(labels, length)) {
    sequences += 1;
    const a = await calibrated(f, false, script);
    const b = await calibrated(f, true, script);
    full += a.ran.length;
    curtailedTrials += b.ran.length;
    paths.push({ script, trials: b.ran.length });
    decisions.add(a.task.decision);
    const same =
      a.task.decision === b.task.decision &&
      JSON.stringify(a.task.borderline) === JSON.stringify(b.task.borderline);
    if (!same) {
      mismatches.push(
        `${JSON.stringify(script)}: full ${a.task.decision} [${a.task.borderline}] vs curtailed ${b.task.decision} [${b.task.borderline}]`,
      );
    }
    // The full run is never incomplete here (every trial is valid), so neither may the curtailed one be.
    expect(a.task.decision).not.toBe("incomplete");
  }
  /** The curtailed runs' expected trials when each cell passes at `rates` (every sequence weighted by its probability). */
  const expected = (rates: Record<string, number>) =>
    paths.reduce((sum, { script, trials }) => {
      let p = 1;
      for (const [label, letters] of Object.entries(script))
        for (const l of letters) p *= l === "P" ? rates[label]! : 1 - rates[label]!;
      return sum + p * trials;
    }, 0);
  return { sequences, full, curtailedTrials, mismatches, decisions, expected, fixture: f };
}

describe("curtailment keeps every decision", () => {
  it("on all 512 outcome sequences of three cells at n = 3: same decision, flag and revise/discard, fewer trials", async () => {
    const labels = THREE_CELLS.map((c) => c.name);
    const r = await proveEquivalence({ cells: [...THREE_CELLS] }, labels, 3);
    // 3 cells x 3 trials = 9 binary outcomes: 2^9 = 512 sequences, 9 trials each in the full runs.
    expect(r.sequences).toBe(512);
    expect(r.full).toBe(512 * 9);
    expect(r.mismatches).toEqual([]);
    expect(r.curtailedTrials).toBeLessThan(r.full);
    // The engine's paths, weighted by their probability, give exactly the expectation the benchmark
    // computes from the same calls on each state (test/support/curtail-expectation.ts), between the best
    // order's and no curtailment's 9 trials, for rates near the paper's and for a coin in every cell.
    const plan = r.fixture.plan(true);
    for (const rates of [
      { "frontier+A": 0.8, "frontier-A": 0.05, "mid+A": 0.3 },
      { "frontier+A": 0.5, "frontier-A": 0.5, "mid+A": 0.5 },
    ]) {
      const e = taskExpectations(plan, r.fixture.tasks, "t", rates);
      expect(r.expected(rates)).toBeCloseTo(e.kgate.trials, 9);
      expect(e.best.trials).toBeLessThanOrEqual(e.kgate.trials + 1e-9);
      expect(e.kgate.trials).toBeLessThan(9);
    }
  }, 120_000);

  it("the same under --strict and with a control cell (4 cells at n = 2: 256 sequences)", async () => {
    const cells = [
      ...THREE_CELLS,
      { name: "control", agent: "frontier", condition: "perturbed" as const, require: "= 0", control: true },
    ];
    const labels = cells.map((c) => c.name);
    for (const strict of [false, true]) {
      const r = await proveEquivalence({ cells, strict }, labels, 2);
      expect(r.sequences).toBe(256);
      expect(r.mismatches).toEqual([]);
      expect(r.curtailedTrials).toBeLessThan(r.full);
    }
  }, 120_000);
});

describe("curtailment keeps every decision under --sequential", () => {
  // Screening settings that decide within a cap of 3 (so every kind of path occurs): delta = 0.3.
  // ">= 0.6" tests p = 0.9 against p = 0.3: a pass adds ln(0.9/0.3) = 1.0986, a fail ln(0.1/0.7) =
  // -1.9459, the bounds are +-ln(0.95/0.05) = +-2.9444: met after 3 passes in a row (3.2958), not met
  // after 2 fails (-3.8918), undecided at the cap after e.g. P P F (0.2513). "<= 0.4" is the mirror
  // image (3 fails meet it, 2 passes miss it). "= 0": the first pass misses it; 0/k meets it once
  // 1 - 0.05^(1/k) < zeroBound: with zeroBound 0.7 at k = 3 (0.6316; k = 2 gives 0.7764).
  const SCREENING = { enabled: true, cap: 3, delta: 0.3, zeroBound: 0.7 };

  it("on all 512 outcome paths of three cells with a first round of 1 and the cap at 3", async () => {
    const labels = THREE_CELLS.map((c) => c.name);
    // Each cell's outcomes are a sequence of cap = 3 letters (the trials it could ever run): 3 x 3 =
    // 9 binary outcomes, 2^9 = 512 sequences; every screening path is a prefix of one of them.
    const r = await proveEquivalence({ cells: [...THREE_CELLS], sequential: SCREENING }, labels, 1, 3);
    expect(r.sequences).toBe(512);
    // the full runs add trials (more than the first round's 3 per sequence) and stop some cells
    // before the cap (fewer than 9 per sequence)
    expect(r.full).toBeGreaterThan(512 * 3);
    expect(r.full).toBeLessThan(512 * 9);
    expect(r.mismatches).toEqual([]);
    expect(r.curtailedTrials).toBeLessThan(r.full);
    // Every kind of decision occurs, so the proof is not of one easy case.
    expect([...r.decisions].sort()).toEqual(["discard", "retain", "revise"]);
  }, 120_000);

  it("the same with a control cell (4 cells, cap 2: 256 sequences; zeroBound 0.8 decides 0/2: 0.7764)", async () => {
    const cells = [
      ...THREE_CELLS,
      { name: "control", agent: "frontier", condition: "perturbed" as const, require: "= 0", control: true },
    ];
    const labels = cells.map((c) => c.name);
    const sequential = { ...SCREENING, cap: 2, zeroBound: 0.8 };
    const r = await proveEquivalence({ cells, sequential }, labels, 1, 2);
    expect(r.sequences).toBe(256);
    expect(r.mismatches).toEqual([]);
    expect(r.curtailedTrials).toBeLessThan(r.full);
  }, 120_000);
});

describe("curtailment in a run", () => {
  it("stops a task once one pass without the artefact has discarded it, and says what it skipped", async () => {
    const f = fixture({ cells: [...THREE_CELLS], n: 5 });
    // frontier-A passes at once: "= 0" is missed whatever the other 14 trials show (discard).
    const script = { "frontier+A": "PPPPP", "frontier-A": "PFFFF", "mid+A": "FFFFF" };
    const { task, ran, result } = await calibrated(f, true, script);
    expect(task.decision).toBe("discard");
    expect(result.curtailed).toEqual(["t"]);
    // The order (curtail-order.ts) starts with frontier+A and mid+A (with its prior a -A trial passes
    // 1 time in 10); the first -A trial passes, which decides: nothing runs after it.
    expect(ran).toEqual(["frontier+A#0", "mid+A#0", "frontier-A#0"]);
    // The rule itself already discards on that pass, so its own reason stands (no curtail line).
    expect(task.reasons[0]).toContain("a pass shows p(frontier-A) > 0");
  });

  it("skips the fifth frontier+A trial after four passes, never a -A trial of a retained task", async () => {
    const f = fixture({ cells: [...THREE_CELLS], n: 5 });
    const script = { "frontier+A": "PPPPF", "frontier-A": "FFFFF", "mid+A": "FFFFF" };
    const { task, ran } = await calibrated(f, true, script);
    expect(task.decision).toBe("retain");
    expect(task.borderline).toEqual([]);
    // frontier+A 4/4: 4/5 and 5/5 both meet >= 0.6 and neither by one trial; mid+A 0/4: 0/5 and 1/5
    // both meet <= 0.4 (1/5 is not within one trial: 2/5 still meets). frontier-A needs all five.
    const count = (label: string) => ran.filter((r) => r.startsWith(`${label}#`)).length;
    expect(count("frontier-A")).toBe(5);
    expect(count("frontier+A")).toBe(4);
    expect(count("mid+A")).toBe(4);
  });

  it("says a curtailed cell was curtailed: its counts, its clause and its Table 1 cell", async () => {
    const f = fixture({ cells: [...THREE_CELLS], n: 5 });
    const script = { "frontier+A": "PPPPF", "frontier-A": "FFFFF", "mid+A": "FFFFF" };
    const { summary } = await calibrated(f, true, script);
    const cell = (label: string) => summary.cells.find((c) => c.label === label)!;
    // frontier+A ran 4 of 5: one trial curtailed, none missing
    expect(cell("frontier+A").counts).toMatchObject({ pass: 4, runs: 4, missing: 0, curtailed: 1 });
    expect(cell("frontier-A").counts).toMatchObject({ runs: 5, missing: 0, curtailed: 0 });
    // its clause is what 4/4 shows (met), not "short of n" (undecided), and says it was curtailed
    const clause = cell("frontier+A").clause!;
    expect(clause.verdict).toBe("met");
    expect(clause.short).toBe(0);
    expect(clause.reason).not.toContain("short of n");
    expect(clause.reason).toMatch(/^frontier\+A passed 4\/4 \(100%\): meets p\(frontier\+A\) >= 0\.6/);
    expect(clause.reason).toContain(
      "; curtailed: 1 trial(s) not run because no outcome of them changes the task's decision, so the rate and interval are of the 4 trial(s) run",
    );
    // Table 1: Wilson 95% for 4/4 is [4 / (4 + 1.96^2), 1] = [4 / 7.8416, 1] = [0.510, 1]; for mid+A
    // 0/4 [0, 3.8416 / 7.8416] = [0, 0.490]
    const table = table1(summary);
    expect(table).toContain("4/4 (100%) [51, 100] +1 curtailed");
    expect(table).toContain("0/4 (0%) [0, 49] +1 curtailed");
    expect(table).not.toContain("missing");
  });

  it("reports as remaining only trials that may still run: a settled task's skipped trials are not", async () => {
    const f = fixture({ cells: [...THREE_CELLS], n: 5 });
    const plan = f.plan(true);
    const remaining: number[] = [];
    let text = "";
    const stream = new Writable({
      write(chunk, _e, done) {
        text += chunk.toString();
        done();
      },
    });
    const progress = new Progress(plan, tallyRecords(plan, []), { stream, live: false });
    await runCalibration({
      plan,
      runDir: f.runDir,
      tasks: f.tasks,
      runner: scripted({ "frontier+A": "PPPPP", "frontier-A": "PFFFF", "mid+A": "FFFFF" }, []),
      records: [],
      concurrency: 1,
      events: {
        planned: (r) => {
          remaining.push(r);
          progress.planned(r);
        },
        finished: (...a) => progress.finished(...a),
      },
    });
    progress.close();
    // Before the first trial the task is open: any of its 3 x 5 = 15 trials may run (an upper bound);
    // after frontier+A #0 and mid+A #0, 14 and 13 may. The -A pass then settles it (discard): the
    // other 12 are skipped, so none remains.
    expect(remaining).toEqual([15, 14, 13, 0]);
    // the line of the first trial says the 15 is a bound; the total counts the three trials run
    expect(text).toMatch(/^\[1\/≤15\] t frontier\+A #0 pass /m);
    expect(text).toMatch(/^trials 3\/3 · /m);
  });

  it("judges a resumed run's records the same way: a settled task is decided, an unsettled one incomplete", async () => {
    const f = fixture({ cells: [...THREE_CELLS], n: 5 });
    const plan = f.plan(true);
    const settled = recordsFromScript(plan, f.tasks, { t: { "frontier-A": "P" } });
    const discarded = summarise(plan, settled);
    expect(discarded.tasks[0]!.decision).toBe("discard");
    // the rule discards on its own (its reason stands); the trials skipped are curtailed, not missing:
    // frontier-A 4 of its 5, the other cells all 5
    const counts = (label: string) => discarded.cells.find((c) => c.label === label)!.counts;
    expect(counts("frontier-A")).toMatchObject({ runs: 1, missing: 0, curtailed: 4 });
    expect(counts("frontier+A")).toMatchObject({ runs: 0, missing: 0, curtailed: 5 });
    expect(counts("mid+A")).toMatchObject({ runs: 0, missing: 0, curtailed: 5 });
    // a cell curtailment kept from every trial says so: they will never run, so not "no trial yet"
    expect(discarded.cells.find((c) => c.label === "mid+A")!.clause!.reason).toBe(
      "mid+A has no valid trial (5 curtailed: no outcome of them changes the decision): p(mid+A) <= 0.4 has no evidence either way",
    );
    expect(JSON.stringify(discarded)).not.toContain("no trial yet");
    // without curtailment the same records leave those trials missing (a resume runs them)
    const noCurtail = summarise(
      f.plan(false),
      recordsFromScript(f.plan(false), f.tasks, { t: { "frontier-A": "P" } }),
    );
    expect(noCurtail.cells.find((c) => c.label === "frontier+A")!.counts).toMatchObject({
      missing: 5,
      curtailed: 0,
    });
    const open = recordsFromScript(plan, f.tasks, { t: { "frontier-A": "F" } });
    expect(summarise(plan, open).tasks[0]!.decision).toBe("incomplete");
    // frontier+A 4/4 after frontier-A 5/5 fails and mid+A 0/4: settled retain with curtailment,
    // incomplete without (the plan then wants every trial).
    const script = { t: { "frontier+A": "PPPP", "frontier-A": "FFFFF", "mid+A": "FFFF" } };
    expect(summarise(plan, recordsFromScript(plan, f.tasks, script)).tasks[0]!.decision).toBe("retain");
    const full = f.plan(false);
    expect(summarise(full, recordsFromScript(full, f.tasks, script)).tasks[0]!.decision).toBe("incomplete");
  });

  it("a cell with no clause is never curtailed", async () => {
    const f = fixture({
      cells: [...THREE_CELLS, { name: "extra", agent: "mid", condition: "-A" }],
      n: 3,
    });
    const script = { "frontier+A": "PPP", "frontier-A": "PFF", "mid+A": "FFF", extra: "FFF" };
    const { ran } = await calibrated(f, true, script);
    expect(ran.filter((r) => r.startsWith("extra#"))).toHaveLength(3);
    // the judged cells stop at the -A pass (discard)
    expect(ran.filter((r) => !r.startsWith("extra#"))).toEqual(["frontier+A#0", "mid+A#0", "frontier-A#0"]);
  });

  it("under --sequential, added trials stop as soon as the task is decided", async () => {
    const f = fixture({ cells: [...THREE_CELLS], n: 2, sequential: { enabled: true, cap: 10 } });
    const plan = f.plan(true);
    const curtailer = new Curtailer(plan);
    // frontier-A has a pass: under screening too, a "= 0" clause is not met at its first pass (discard).
    const records: TrialRecord[] = recordsFromScript(plan, f.tasks, { t: { "frontier-A": "P" } });
    const analysis = curtailer.analyse(tallyRecords(plan, records), "t");
    expect(analysis.settled?.decision).toBe("discard");
    const { task, ran } = await calibrated(f, true, {
      "frontier+A": "PPPPPPPPPP",
      "frontier-A": "PFFFFFFFFF",
      "mid+A": "FFFFFFFFFF",
    });
    expect(task.decision).toBe("discard");
    expect(ran).toEqual(["frontier-A#0"]);
  });
});

describe("curtailment under --sequential", () => {
  it("gives the full run's decision on the four default cells with the cap at 20, in fewer trials", async () => {
    const cells = [
      ...THREE_CELLS,
      { name: "control", agent: "frontier", condition: "perturbed" as const, require: "= 0", control: true },
    ];
    const f = fixture({ cells, n: 5, sequential: { enabled: true, cap: 20 } });
    // frontier+A always passes, the others never: the full run needs 6 + 14 + 6 + 14 trials (SPRT
    // and the "= 0" bound, worked out in calibrate-engine.test.ts); every cell is needed to retain.
    const script = {
      "frontier+A": "P".repeat(20),
      "frontier-A": "F".repeat(20),
      "mid+A": "F".repeat(20),
      control: "F".repeat(20),
    };
    const a = await calibrated(f, false, script);
    const b = await calibrated(f, true, script);
    expect(a.ran).toHaveLength(40);
    expect(b.task.decision).toBe(a.task.decision);
    expect(b.task.borderline).toEqual(a.task.borderline);
    expect(b.ran.length).toBeLessThanOrEqual(a.ran.length);
  }, 120_000);
});
