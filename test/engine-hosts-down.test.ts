// The engine's stop when every sandbox host stayed down (no Docker: a runner that throws as the
// pool's place() does): the attempt that met it gets no record, queued attempts never start, a
// running one ends through its signal, and run()/runAll() reject with HostsDownStop (exit 2).
import { mkdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { buildPlan, CalibrationConfig, runCalibration } from "../src/calibrate/index.ts";
import { EXIT_USAGE } from "../src/errors.ts";
import { trialError } from "../src/record/index.ts";
import { AllHostsDownError } from "../src/sandbox/index.ts";
import {
  HostsDownStop,
  readTrialRecords,
  TrialEngine,
  type TrialRunner,
  type TrialSlot,
} from "../src/trial/index.ts";
import { scaffoldedTask } from "./support/agent-context.ts";
import { fakeRunner, resolver, scaffoldTasks } from "./support/calibrate-fixtures.ts";
import { tempDir, tempProject } from "./support/project.ts";
import { makeRecord } from "./support/records.ts";

const agent = { name: "oracle", digest: "d".repeat(64), harness: "oracle", model: null, provider: "local" };

describe("every host down: the engine stops", () => {
  it("slot 1 meets every host down while slot 0 runs: no record for 1, 2..4 never start, exit 2", async () => {
    const task = scaffoldedTask();
    const started: number[] = [];
    const runner: TrialRunner = async (job, signal) => {
      started.push(job.index);
      if (job.index === 1) throw new AllHostsDownError("every sandbox host is down (only: gone)");
      // slot 0 runs until the stop reaches it through its signal
      await new Promise((r) => signal.addEventListener("abort", r, { once: true }));
      return makeRecord({
        trialId: job.trialId,
        index: job.index,
        stopReason: "cancelled",
        error: trialError("cancelled", String((signal.reason as Error).message)),
      });
    };
    const engine = new TrialEngine({
      runId: "r",
      runDir: tempDir("kgate-engine-down-"),
      runner,
      concurrency: 2,
      retries: 3,
    });
    const slots: TrialSlot[] = [0, 1, 2, 3, 4].map((index) => ({ task, condition: "+A", agent, index }));
    const failure = await engine.runAll(slots).then(
      () => null,
      (err: unknown) => err,
    );
    expect(failure).toBeInstanceOf(HostsDownStop);
    expect((failure as HostsDownStop).code).toBe(EXIT_USAGE);
    expect((failure as Error).message).toMatch(
      /^every sandbox host is down \(only: gone\): the run stopped; the units it did not run have no record/,
    );
    // concurrency 2: slots 0 and 1 started; 2, 3 and 4 were queued and never started; 1 not retried
    expect(started.sort()).toEqual([0, 1]);
    // one record: slot 0's, cancelled by the stop (not counted); none for slot 1
    expect(engine.written.map((r) => [r.index, r.error?.kind])).toEqual([[0, "cancelled"]]);
    expect(engine.halted).toBe(failure);
    // a later slot is refused at once
    await expect(engine.run({ task, condition: "+A", agent, index: 9 })).rejects.toBe(failure);
  });
});

describe("every host down under calibrate's engine", () => {
  it("runCalibration rejects with HostsDownStop; the records written are those that ran", async () => {
    const paths = tempProject();
    const loaded = scaffoldTasks(paths, ["t1"]);
    const plan = buildPlan({
      runId: "run-1",
      config: CalibrationConfig.parse({}),
      tasks: loaded,
      resolveAgent: resolver(),
    });
    const runDir = path.join(paths.runs, "run-1");
    mkdirSync(runDir, { recursive: true });
    let starts = 0;
    let thrownFor: string | null = null;
    const runner = fakeRunner({
      pass: { "frontier+A": 1 },
      delayMs: 30,
      onStart: (job) => {
        starts += 1;
        // the fourth attempt finds every host down (concurrency 3: three are running or done)
        if (starts === 4) {
          thrownFor = job.trialId;
          throw new AllHostsDownError("every sandbox host is down (x: gone)");
        }
      },
    });
    const failure = await runCalibration({
      plan,
      runDir,
      tasks: new Map(loaded.map((t) => [t.id, t])),
      runner,
      records: [],
      concurrency: 3,
    }).then(
      () => null,
      (err: unknown) => err,
    );
    expect(failure).toBeInstanceOf(HostsDownStop);
    const { records } = readTrialRecords(runDir);
    // three attempts started before the stop, each with one record (done, or cancelled by the stop);
    // the fourth has none, and nothing started after it
    expect(starts).toBe(4);
    expect(records).toHaveLength(3);
    expect(records.map((r) => r.trialId)).not.toContain(thrownFor);
  });
});
