// Nothing is left behind: a kgate killed with SIGKILL leaves containers that the next kgate command
// removes; SIGTERM (like Ctrl-C) removes the run's containers before the process exits.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DockerClient } from "../src/sandbox/docker/client.ts";
import { LABEL_RUN } from "../src/sandbox/index.ts";
import { readTrialRecords, runDirOf } from "../src/trial/index.ts";
import { KGATE_BIN, kgate } from "./support/cli.ts";
import { demoTask } from "./support/sandbox.ts";

const docker = new DockerClient();
const containersOf = (runId: string) => docker.listContainers([`${LABEL_RUN}=${runId}`]);

function startRun(root: string, runId: string): { child: ChildProcess; exited: Promise<number | null> } {
  const child = spawn(
    process.execPath,
    [
      KGATE_BIN,
      "--root",
      root,
      "run",
      "demo",
      "--agent",
      "oracle",
      "-n",
      "2",
      "--concurrency",
      "2",
      "--run-id",
      runId,
    ],
    { stdio: "ignore", env: { ...process.env, NO_COLOR: "1" } },
  );
  const exited = new Promise<number | null>((resolve) =>
    child.on("exit", (code, signal) => resolve(code ?? (signal ? -1 : null))),
  );
  return { child, exited };
}

async function waitForRunning(runId: string, count: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const list = await containersOf(runId);
    if (list.filter((c) => c.state === "running").length >= count) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`the run ${runId} did not start ${count} containers within 60 s`);
}

const sleepingTask = () => demoTask({ solution: "sleep 120\n" });

describe("the reaper", () => {
  it("after SIGKILL the containers stay, and the next kgate run removes them", async () => {
    const { paths } = sleepingTask();
    const runId = `test-sigkill-${process.pid}`;
    const { child, exited } = startRun(paths.root, runId);
    await waitForRunning(runId, 2);
    child.kill("SIGKILL");
    await exited;
    expect(await containersOf(runId)).toHaveLength(2);

    // Any kgate command that uses Docker reaps host-wide (one running in a parallel test file may
    // get there first), so the check is that the containers are gone once this command ran.
    const next = kgate(["--root", paths.root, "run", "demo", "--agent", "noop"]);
    expect(next.code).toBe(0);
    expect(await containersOf(runId)).toEqual([]);
  }, 120_000);

  it("`kgate sandbox reap` removes the containers of a killed run and lists them", async () => {
    const { paths } = sleepingTask();
    const runId = `test-reap-${process.pid}`;
    const { child, exited } = startRun(paths.root, runId);
    await waitForRunning(runId, 2);
    child.kill("SIGKILL");
    await exited;
    const reaped = kgate(["--root", paths.root, "sandbox", "reap", "--json"]);
    expect(reaped.code).toBe(0);
    const removed = JSON.parse(reaped.stdout).removed as Array<{ id: string; run: string; trial: string }>;
    // `host`: the host of `sandbox.hosts` it was on (here the one local endpoint).
    for (const c of removed)
      expect(c).toEqual({
        id: expect.any(String),
        run: expect.any(String),
        trial: expect.any(String),
        host: "local",
      });
    expect(await containersOf(runId)).toEqual([]);
  }, 120_000);

  it("the first sandbox any kgate process creates sweeps the containers of dead runs first", async () => {
    const { paths } = sleepingTask();
    const runId = `test-sweep-${process.pid}`;
    const { child, exited } = startRun(paths.root, runId);
    await waitForRunning(runId, 2);
    child.kill("SIGKILL");
    await exited;
    const script = path.resolve(import.meta.dirname, "support/provider-child.ts");
    const other = spawnSync(
      process.execPath,
      ["--import", "tsx", script, paths.root, `${runId}-next`, "once"],
      {
        encoding: "utf8",
      },
    );
    expect(other.status, other.stderr).toBe(0);
    expect(await containersOf(runId)).toEqual([]);
  }, 120_000);

  it("on SIGTERM the run removes its containers, records the trials as cancelled and exits 143", async () => {
    const { paths } = sleepingTask();
    const runId = `test-sigterm-${process.pid}`;
    const { child, exited } = startRun(paths.root, runId);
    await waitForRunning(runId, 2);
    child.kill("SIGTERM");
    expect(await exited).toBe(143);
    expect(await containersOf(runId)).toEqual([]);
    const { records, problems } = readTrialRecords(runDirOf(paths, runId));
    expect(problems).toEqual([]);
    expect(
      records.map((r) => r.error?.kind),
      JSON.stringify(records.map((r) => r.error)),
    ).toEqual(["cancelled", "cancelled"]);
  }, 120_000);
});
