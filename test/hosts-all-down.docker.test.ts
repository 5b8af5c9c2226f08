// A run whose only sandbox host stops mid-run: the pool waits out its grace period, then the engine
// stops placing; `kgate run` exits 2 naming the host, the trials it did not run have no record, and
// no record written claims a result it did not get.
import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { outcomeOf } from "../src/record/index.ts";
import { LABEL_RUN } from "../src/sandbox/index.ts";
import { readTrialRecords } from "../src/trial/index.ts";
import { KGATE_BIN } from "./support/cli.ts";
import { demoTask, sandboxImage } from "./support/sandbox.ts";
import { type SecondDaemon, startSecondDaemon } from "./support/second-daemon.ts";

let second: SecondDaemon;

beforeAll(async () => {
  second = await startSecondDaemon({ keep: { name: "hosts-all-down", images: [sandboxImage()] } });
}, 180_000);

afterAll(async () => {
  await second?.stop();
});

describe("every host down mid-run", () => {
  it("stops with exit 2 naming the host; the trials not run have no record", async () => {
    const { paths } = demoTask();
    const solve = path.join(paths.tasks, "demo", "solution", "solve.sh");
    writeFileSync(solve, `sleep 4\n${readFileSync(solve, "utf8")}`);
    const config = existsSync(paths.config) ? JSON.parse(readFileSync(paths.config, "utf8")) : {};
    config.sandbox = { hosts: [{ name: "only", host: second.host, capacity: 1 }] };
    writeFileSync(paths.config, JSON.stringify(config, null, 2));
    const runId = "all-down";
    const child = spawn(
      process.execPath,
      [KGATE_BIN, "--root", paths.root, "run", "demo", "--agent", "oracle", "-n", "4", "--run-id", runId],
      { env: { ...process.env, NO_COLOR: "1" } },
    );
    let stderr = "";
    child.stderr.on("data", (c: Buffer) => {
      stderr += c.toString();
    });
    const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
    // the first trial's container appears on the only host: stop that host under it
    const deadline = Date.now() + 90_000;
    while ((await second.client.listContainers([`${LABEL_RUN}=${runId}`])).length === 0) {
      if (Date.now() > deadline) throw new Error(`no trial started:\n${stderr}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const stoppedAt = Date.now();
    await second.stop();
    const code = await exited;
    expect(code, stderr).toBe(2);
    expect(stderr).toMatch(/kgate: every sandbox host is down \(only: .+\): the run stopped/);
    // the pool's grace period (15 s) passed before it gave up
    expect(Date.now() - stoppedAt).toBeGreaterThanOrEqual(15_000);
    const { records, problems } = readTrialRecords(path.join(paths.runs, runId));
    expect(problems).toEqual([]);
    // 4 slots, concurrency 1: slot 0 ran on the host as it stopped; slots 1..3 never got a host
    expect(records.length).toBeGreaterThan(0);
    expect(records.every((r) => r.index === 0)).toBe(true);
    // what was written claims no result: the sandbox's failure (host-down, or the container stopped
    // under a command as the daemon went) or cancelled, never counted, so a resume reruns it
    for (const r of records) {
      expect(["host-down", "sandbox-unavailable", "cancelled"], JSON.stringify(r.error)).toContain(
        r.error?.kind,
      );
      expect(outcomeOf(r)).toBe("infra");
    }
  }, 240_000);
});
