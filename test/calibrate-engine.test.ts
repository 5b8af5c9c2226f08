// The bounded pool with per-provider limits, and the engine that runs what a plan still wants:
// exactly n per cell, resume of missing trials only, infra retries, abort, sequential screening.
import { mkdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  buildPlan,
  CalibrationConfig,
  type CalibrationConfigInput,
  type CellJob,
  runCalibration,
  summarise,
} from "../src/calibrate/index.ts";
import type { TrialRecord } from "../src/record/index.ts";
import type { LoadedTask } from "../src/task/index.ts";
import { PoolAbortedError, readTrialRecords, UnitPool } from "../src/trial/index.ts";
import { type FakeRunnerOptions, fakeRunner, resolver, scaffoldTasks } from "./support/calibrate-fixtures.ts";
import { tempProject } from "./support/project.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("trial pool", () => {
  it("never runs more than the global or the per-provider limit", async () => {
    const running = new Map<string, number>();
    let total = 0;
    let maxTotal = 0;
    const maxBy = new Map<string, number>();
    const pool = new UnitPool<{ p: string }, void>(
      { concurrency: 3, providerLimits: { a: 1 } },
      (j) => j.p,
      async (j) => {
        total += 1;
        running.set(j.p, (running.get(j.p) ?? 0) + 1);
        maxTotal = Math.max(maxTotal, total);
        maxBy.set(j.p, Math.max(maxBy.get(j.p) ?? 0, running.get(j.p)!));
        await sleep(5);
        total -= 1;
        running.set(j.p, running.get(j.p)! - 1);
      },
    );
    await Promise.all(Array.from({ length: 24 }, (_, i) => pool.submit({ p: i % 3 === 0 ? "a" : "b" })));
    expect(maxTotal).toBe(3);
    expect(maxBy.get("a")).toBe(1);
    expect(maxBy.get("b")).toBe(2);
  });

  it("starts another provider's job while one provider is saturated", async () => {
    const order: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const pool = new UnitPool<string, void>(
      { concurrency: 2, providerLimits: { slow: 1 } },
      (j) => j.split("-")[0]!,
      async (j) => {
        order.push(j);
        if (j.startsWith("slow")) await gate;
      },
    );
    const done = [pool.submit("slow-1"), pool.submit("slow-2"), pool.submit("fast-1"), pool.submit("fast-2")];
    await sleep(10);
    // slow-2 waits for its provider; the fast jobs behind it in the queue run anyway.
    expect(order).toEqual(["slow-1", "fast-1", "fast-2"]);
    release();
    await Promise.all(done);
    expect(order).toEqual(["slow-1", "fast-1", "fast-2", "slow-2"]);
  });

  it("rejects queued jobs on abort and lets running ones see the signal", async () => {
    const controller = new AbortController();
    let sawAbort = false;
    const pool = new UnitPool<number, number>(
      { concurrency: 1, signal: controller.signal },
      () => "x",
      async (j, signal) => {
        await new Promise<void>((r) => signal.addEventListener("abort", () => r()));
        sawAbort = signal.aborted;
        return j;
      },
    );
    const first = pool.submit(1);
    const second = pool.submit(2);
    controller.abort();
    await expect(second).rejects.toBeInstanceOf(PoolAbortedError);
    await expect(first).resolves.toBe(1);
    expect(sawAbort).toBe(true);
    await expect(pool.submit(3)).rejects.toBeInstanceOf(PoolAbortedError);
  });
});

interface Setup {
  runDir: string;
  tasks: Map<string, LoadedTask>;
  plan: ReturnType<typeof buildPlan>;
}

function setup(ids: string[], config: CalibrationConfigInput = {}): Setup {
  const paths = tempProject();
  const loaded = scaffoldTasks(paths, ids);
  const plan = buildPlan({
    runId: "run-1",
    config: CalibrationConfig.parse({ curtail: false, ...config }),
    tasks: loaded,
    resolveAgent: resolver(),
  });
  const runDir = path.join(paths.runs, "run-1");
  mkdirSync(runDir, { recursive: true });
  return { runDir, tasks: new Map(loaded.map((t) => [t.id, t])), plan };
}

async function run(
  s: Setup,
  runner: FakeRunnerOptions,
  extra: { signal?: AbortSignal; concurrency?: number } = {},
) {
  const records = readTrialRecords(s.runDir).records;
  return runCalibration({
    plan: s.plan,
    runDir: s.runDir,
    tasks: s.tasks,
    runner: fakeRunner(runner),
    records,
    concurrency: extra.concurrency ?? 3,
    providerLimits: { anthropic: 2 },
    signal: extra.signal,
  });
}

function perCell(s: Setup, keep: (r: TrialRecord) => boolean = () => true): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const r of readTrialRecords(s.runDir).records.filter(keep)) {
    const key = `${r.task.id} ${r.agent.name} ${r.condition}`;
    out[key] = [...(out[key] ?? []), r.index];
  }
  for (const v of Object.values(out)) v.sort((a, b) => a - b);
  return out;
}

const CLEAR = { "frontier+A": 1, "frontier-A": 0, "mid+A": 0, control: 0 };

describe("calibration engine, fixed n", () => {
  it("runs exactly n trials per cell, within the provider limit", async () => {
    const s = setup(["alpha", "beta"]);
    let anthropic = 0;
    let peak = 0;
    const result = await run(s, {
      pass: CLEAR,
      delayMs: 2,
      onStart: (j: CellJob) => {
        if (j.agent.provider === "anthropic") peak = Math.max(peak, ++anthropic);
      },
      onEnd: (j: CellJob) => {
        if (j.agent.provider === "anthropic") anthropic -= 1;
      },
    });
    expect(result.interrupted).toBe(false);
    expect(result.written).toHaveLength(40);
    expect(peak).toBe(2);
    const cells = perCell(s);
    expect(Object.keys(cells)).toHaveLength(8);
    for (const indices of Object.values(cells)) expect(indices).toEqual([0, 1, 2, 3, 4]);
  });

  it("on resume runs only the missing trials", async () => {
    const s = setup(["alpha"]);
    const controller = new AbortController();
    let started = 0;
    const first = await run(
      s,
      {
        pass: CLEAR,
        delayMs: 5,
        onStart: () => {
          if (++started === 7) controller.abort();
        },
      },
      { signal: controller.signal, concurrency: 2 },
    );
    expect(first.interrupted).toBe(true);
    const records = readTrialRecords(s.runDir).records;
    const cancelled = records.filter((r) => r.error?.kind === "cancelled");
    expect(cancelled.length).toBeGreaterThan(0);
    expect(cancelled.every((r) => r.stopReason === "cancelled")).toBe(true);
    // Cancelled trials are not the agent's: the resume runs them again, beside the missing ones.
    const before = records.length - cancelled.length;
    expect(before).toBeLessThan(20);
    const second = await run(s, { pass: CLEAR });
    expect(second.written).toHaveLength(20 - before);
    const counted = (r: TrialRecord) => r.error?.kind !== "cancelled";
    for (const indices of Object.values(perCell(s, counted))) expect(indices).toEqual([0, 1, 2, 3, 4]);
  });

  it("retries infrastructure errors with a new attempt and leaves them out of the rates", async () => {
    const s = setup(["alpha"], { infraRetries: 1 });
    const result = await run(s, { pass: CLEAR, infra: 0.3, seed: 7 });
    const records = readTrialRecords(s.runDir).records;
    const retried = records.filter((r) => r.attempt === 2);
    expect(retried.length).toBeGreaterThan(0);
    for (const r of retried) {
      expect(
        records.some((x) => x.trialId === r.trialId.replace(/\.retry1$/, "") && x.error?.owner === "sandbox"),
      ).toBe(true);
    }
    const summary = summarise(s.plan, records);
    const infraLeft = summary.cells.reduce((n, c) => n + c.counts.infra, 0);
    expect(result.exhausted).toBe(infraLeft);
    for (const c of summary.cells) expect(c.counts.runs + c.counts.infra).toBe(5);
  });
  it("gives a trial one attempt when its infrastructure error is not worth another", async () => {
    const s = setup(["alpha"], { infraRetries: 2 });
    const result = await run(s, { pass: CLEAR, infra: 1, infraKind: "config" });
    expect(result.written).toHaveLength(20);
    expect(result.exhausted).toBe(20);
    expect(new Set(result.written.map((r) => r.attempt))).toEqual(new Set([1]));
  });
});

describe("calibration engine, sequential screening", () => {
  it("adds trials to undecided cells only and stops at a decision", async () => {
    const s = setup(["alpha"], { sequential: { enabled: true, cap: 20 } });
    await run(s, { pass: CLEAR });
    const counts = Object.fromEntries(
      Object.entries(perCell(s)).map(([k, v]) => [k.split(" ").slice(1).join(" "), v.length]),
    );
    // p = 1 needs 6 passes for >= 0.6 and p = 0 6 failures for <= 0.4 (SPRT); "= 0" needs 0/n with
    // 1 - 0.05^(1/n) < 0.2, i.e. n > ln 0.05 / ln 0.8 = 2.996 / 0.223 = 13.4: 14 trials.
    expect(counts).toEqual({
      "frontier +A": 6,
      "frontier -A": 14,
      "mid +A": 6,
      "frontier variant:perturbed": 14,
    });
    const summary = summarise(s.plan, readTrialRecords(s.runDir).records);
    expect(summary.tasks[0]!.decision).toBe("retain");
  });

  it("stops a task once a rule clause is decided not met", async () => {
    const s = setup(["alpha"], { sequential: { enabled: true, cap: 20 } });
    await run(s, { pass: { "frontier+A": 1, "frontier-A": 1, "mid+A": 0.5, control: 0.5 } });
    for (const indices of Object.values(perCell(s))) expect(indices).toHaveLength(5);
    const summary = summarise(s.plan, readTrialRecords(s.runDir).records);
    expect(summary.tasks[0]!.decision).toBe("discard");
    expect(summary.tasks[0]!.reasons).toEqual([
      "frontier-A passed 5/5 (100%): 5 passes show p(frontier-A) > 0, so it misses p(frontier-A) = 0",
    ]);
  });

  it("never goes past the cap and calls a capped clause borderline", async () => {
    const s = setup(["alpha"], {
      sequential: { enabled: true, cap: 8 },
      cells: [{ name: "m", agent: "mid", condition: "+A", require: "<= 0.4" }],
    });
    // About one pass in three sits inside the zone [0.25, 0.55]: the SPRT never decides.
    await run(s, { pass: {}, script: { m: "PFFPFFPFFPFF" } });
    expect(Object.values(perCell(s))).toEqual([[0, 1, 2, 3, 4, 5, 6, 7]]);
    const summary = summarise(s.plan, readTrialRecords(s.runDir).records);
    expect(summary.cells[0]!.clause).toMatchObject({
      verdict: "undecided",
      borderline: true,
      passes: 3,
      runs: 8,
    });
    expect(summary.tasks[0]!.decision).toBe("revise");
  });
});
