// The Docker provider beyond the default socket: a second daemon started by this test (own
// data-root and socket) runs trials reached through DOCKER_HOST, and through kgate.config.json's
// `sandbox.docker.host`; no container of those runs ever appears on the first daemon.
import { spawn, spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TrialRecord } from "../src/record/index.ts";
import { DockerClient } from "../src/sandbox/docker/client.ts";
import { LABEL_RUN } from "../src/sandbox/index.ts";
import { KGATE_BIN, kgate } from "./support/cli.ts";
import { demoTask, sandboxImage } from "./support/sandbox.ts";
import { type SecondDaemon, startSecondDaemon } from "./support/second-daemon.ts";

let second: SecondDaemon;
const first = new DockerClient();
const bridgeOfFirst = () => spawnSync("ip", ["link", "show", "docker0"]).status === 0;
let hadBridge = false;

beforeAll(async () => {
  hadBridge = bridgeOfFirst();
  second = await startSecondDaemon({ keep: { name: "docker-host", images: [sandboxImage()] } });
}, 180_000);

afterAll(async () => {
  await second?.stop();
});

/** Runs `kgate run` in the background and watches both daemons for the run's containers. */
async function runWatched(root: string, runId: string, env: NodeJS.ProcessEnv = {}) {
  const seen = { first: 0, second: 0 };
  let done = false;
  const watch = (async () => {
    while (!done) {
      seen.first += (await first.listContainers([`${LABEL_RUN}=${runId}`])).length;
      seen.second += (await second.client.listContainers([`${LABEL_RUN}=${runId}`])).length;
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(
      process.execPath,
      [KGATE_BIN, "--root", root, "run", "demo", "--agent", "oracle", "--run-id", runId, "--json"],
      { env: { ...process.env, NO_COLOR: "1", ...env } },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on("data", (c: Buffer) => {
      stderr += c.toString();
    });
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
  done = true;
  await watch;
  return { ...result, seen };
}

describe("a trial on another Docker daemon", () => {
  it("runs through DOCKER_HOST: the record names that host, the container ran there only", async () => {
    const { paths } = demoTask();
    const solve = path.join(paths.tasks, "demo", "solution", "solve.sh");
    writeFileSync(solve, `sleep 2\n${readFileSync(solve, "utf8")}`); // long enough for the watcher to see it
    const result = await runWatched(paths.root, "on-second", { DOCKER_HOST: second.host });
    expect(result.code, result.stderr).toBe(0);
    const [record] = (JSON.parse(result.stdout) as { records: TrialRecord[] }).records;
    expect(record?.verdict.status).toBe("pass");
    expect(record?.provenance?.host).toBe(second.host);
    expect(record?.provenance?.sandboxImage).toBe(await second.client.imageId(sandboxImage()));
    expect(result.seen.second).toBeGreaterThan(0);
    expect(result.seen.first).toBe(0);
  }, 180_000);

  it("runs on the host that kgate.config.json names under sandbox.docker.host", async () => {
    const { paths } = demoTask();
    const solve = path.join(paths.tasks, "demo", "solution", "solve.sh");
    writeFileSync(solve, `sleep 2\n${readFileSync(solve, "utf8")}`);
    writeFileSync(
      paths.config,
      JSON.stringify({ schemaVersion: 1, sandbox: { docker: { host: second.host } } }),
    );
    const result = await runWatched(paths.root, "configured");
    expect(result.code, result.stderr).toBe(0);
    const [record] = (JSON.parse(result.stdout) as { records: TrialRecord[] }).records;
    expect(record?.verdict.status).toBe("pass");
    expect(record?.provenance?.host).toBe(second.host);
    expect(result.seen.second).toBeGreaterThan(0);
    expect(result.seen.first).toBe(0);
  }, 180_000);

  it("leaves the first daemon's bridge alone (its image builds need it)", () => {
    expect(bridgeOfFirst()).toBe(hadBridge);
  });

  it("names the file and the field of a bad sandbox setting", () => {
    const { paths } = demoTask();
    writeFileSync(
      paths.config,
      JSON.stringify({ schemaVersion: 1, sandbox: { docker: { host: "http://x" } } }),
    );
    const result = kgate(["--root", paths.root, "run", "demo", "--agent", "oracle"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /kgate\.config\.json: sandbox\.docker\.host: must start with unix:\/\/, tcp:\/\/ or ssh:\/\//,
    );
  });
});
