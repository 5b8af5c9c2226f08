// The library's AbortSignal (src/api/, package export "kgate") with real containers: aborting
// calibrate() and runTrials() stops the work, keeps the trials that finished, records the ones cut
// short as cancelled (never as the agent's failure) and leaves no container of the run behind.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { calibrate, openProject, type ProgressSource, readRecords, runTrials } from "../src/api/index.ts";
import { outcomeOf, type TrialRecord } from "../src/record/index.ts";
import { DockerClient } from "../src/sandbox/docker/client.ts";
import { LABEL, LABEL_RUN } from "../src/sandbox/index.ts";
import { scaffoldTask } from "../src/task/index.ts";
import { writeJson } from "./support/project.ts";
import { demoTask, sandboxImage } from "./support/sandbox.ts";

/** An oracle that never finishes: only the abort ends its trials. */
const HANGING_ORACLE = "#!/usr/bin/env bash\nsleep 100000\n";

async function runContainers(runId: string): Promise<number> {
  return (await new DockerClient().listContainers([`${LABEL}=1`, `${LABEL_RUN}=${runId}`])).length;
}

/** Resolves once run `runId` has a container (a trial in its sandbox); a hang is bounded by vitest. */
async function containerOf(runId: string): Promise<void> {
  while ((await runContainers(runId)) === 0) await new Promise((r) => setTimeout(r, 50));
}

/** Trials that ran to a verdict (pass or fail): no infrastructure attempt, no cancelled one. */
const counted = (records: readonly TrialRecord[]) => records.filter((r) => outcomeOf(r) !== "infra");
/** Trials the abort cut short (an attempt lost to a loaded Docker is another kind, and retried). */
const cancelled = (records: readonly TrialRecord[]) => records.filter((r) => r.error?.kind === "cancelled");

describe("aborting the library's runs", () => {
  it("calibrate(): finished trials kept, running ones cancelled, no container left", async () => {
    sandboxImage();
    // Two tasks, admitted in their order: a-fast's oracle finishes, b-hang's never does.
    const { paths } = demoTask({ id: "a-fast" });
    scaffoldTask(paths, { id: "b-hang", gate: "convention" });
    writeFileSync(path.join(paths.tasks, "b-hang", "solution", "solve.sh"), HANGING_ORACLE);
    writeJson(paths.config, {
      calibration: {
        n: 2,
        concurrency: 2,
        cells: [{ name: "oracle+A", agent: "oracle", condition: "+A", require: ">= 0.5" }],
      },
    });
    const controller = new AbortController();
    const seen: TrialRecord[] = [];
    let fastDone: () => void;
    const fastFinished = new Promise<void>((resolve) => {
      fastDone = resolve;
    });
    const running = calibrate(openProject(paths.root), {
      runId: "stopped",
      signal: controller.signal,
      onTrial: (record) => {
        seen.push(record);
        if (seen.filter((r) => r.task.id === "a-fast" && outcomeOf(r) !== "infra").length === 2) fastDone();
      },
    });
    // a-fast's two trials finished; b-hang's never finish, so any container of the run is theirs.
    await fastFinished;
    await containerOf("stopped");
    controller.abort();
    const result = await running;

    expect(result.interrupted).toBe(true);
    const { records } = readRecords(result.runDir);
    const of = (task: string) => records.filter((r) => r.task.id === task);
    // a-fast's trials ran to the end and stay recorded: two passes (the oracle's answer).
    expect(counted(of("a-fast")).map((r) => r.verdict.status)).toEqual(["pass", "pass"]);
    // b-hang's trials were cut short (the running one, and any not started): cancelled, counted
    // neither as pass nor as fail.
    expect(cancelled(of("b-hang")).length).toBeGreaterThanOrEqual(1);
    expect(counted(of("b-hang"))).toEqual([]);
    const decisions = Object.fromEntries(result.summary.tasks.map((t) => [t.id, t.decision]));
    // a-fast: 2 of 2 pass, >= 0.5 holds; b-hang: no trial counted.
    expect(decisions).toEqual({ "a-fast": "retain", "b-hang": "incomplete" });
    expect(await runContainers("stopped")).toBe(0);
  });

  it("runTrials(): the running trial is cancelled, the next one never starts, no container left", async () => {
    sandboxImage();
    const { paths } = demoTask({ solution: HANGING_ORACLE });
    const controller = new AbortController();
    const lines: Array<[ProgressSource, string]> = [];
    const running = runTrials(openProject(paths.root), {
      task: "demo",
      agent: "oracle",
      condition: "+A",
      n: 2,
      concurrency: 1,
      runId: "stopped-run",
      signal: controller.signal,
      onProgress: (line, source) => lines.push([source, line]),
    });
    await containerOf("stopped-run");
    controller.abort();
    const result = await running;

    expect(result.interrupted).toBe(true);
    expect(lines).toContainEqual([
      "run",
      "run stopped-run: 2 trial(s) of demo +A with oracle, concurrency 1",
    ]);
    // n = 2 at concurrency 1: the first trial was in its sandbox (cancelled); the second never
    // started, so it has no record (a later run may run it).
    expect(cancelled(result.records).map((r) => r.index)).toEqual([0]);
    expect(result.records.some((r) => r.index === 1)).toBe(false);
    expect(counted(result.records)).toEqual([]);
    expect(readRecords(result.runDir).records).toHaveLength(result.records.length);
    expect(await runContainers("stopped-run")).toBe(0);
  });
});
