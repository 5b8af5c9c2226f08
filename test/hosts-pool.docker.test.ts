// `sandbox.hosts` with two real daemons: the machine's own and a second dockerd reached over TCP with
// TLS certificates made here. Trials land on both hosts (records say where), the second host gets
// the image by id, an interrupted run's containers are removed on both, a SIGKILL'd run's are swept
// on both, and a host stopped mid-run has its trials retried on the other one, every trial ending once.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TrialRecord } from "../src/record/index.ts";
import { DockerClient } from "../src/sandbox/docker/client.ts";
import { dockerOptions } from "../src/sandbox/docker/provider.ts";
import { LABEL, LABEL_RUN, removeRunEverywhere } from "../src/sandbox/index.ts";
import { readTrialRecords } from "../src/trial/index.ts";
import { KGATE_BIN, kgate } from "./support/cli.ts";
import { demoTask, sandboxImage } from "./support/sandbox.ts";
import { type SecondDaemon, startSecondDaemon } from "./support/second-daemon.ts";
import { makeTlsFiles, type TlsFiles } from "./support/tls-certs.ts";

let second: SecondDaemon;
let tls: TlsFiles;
let remote: DockerClient;
const local = new DockerClient();

beforeAll(async () => {
  tls = makeTlsFiles();
  const port = 23000 + Math.floor(Math.random() * 900);
  second = await startSecondDaemon({ tls: { ...tls, port } });
  remote = new DockerClient(
    dockerOptions({ host: second.tcp, tls: { ca: tls.ca, cert: tls.cert, key: tls.key } }),
  );
  await remote.ping(); // over TCP, the client certificate verified by the daemon
}, 120_000);

afterAll(async () => {
  await second?.stop();
});

/** A demo project whose oracle sleeps first, with both hosts (capacity 1 each) in kgate.config.json. */
function twoHostProject(sleepSec: number) {
  const { paths } = demoTask();
  const solve = path.join(paths.tasks, "demo", "solution", "solve.sh");
  writeFileSync(solve, `sleep ${sleepSec}\n${readFileSync(solve, "utf8")}`);
  const config = existsSync(paths.config) ? JSON.parse(readFileSync(paths.config, "utf8")) : {};
  config.sandbox = {
    hosts: [
      { name: "here", host: "unix:///var/run/docker.sock", capacity: 1 },
      {
        name: "there",
        host: second.tcp,
        capacity: 1,
        tls: { ca: tls.ca, cert: tls.cert, key: tls.key },
      },
    ],
  };
  writeFileSync(paths.config, JSON.stringify(config, null, 2));
  return paths;
}

function runInBackground(
  root: string,
  runId: string,
  n: number,
): { child: ChildProcess; done: Promise<{ code: number | null; stdout: string; stderr: string }> } {
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
      String(n),
      "--concurrency",
      "2",
      "--run-id",
      runId,
      "--json",
    ],
    { env: { ...process.env, NO_COLOR: "1" } },
  );
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (c: Buffer) => {
    stdout += c.toString();
  });
  child.stderr?.on("data", (c: Buffer) => {
    stderr += c.toString();
  });
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on("exit", (code) => resolve({ code, stdout, stderr })),
  );
  return { child, done };
}

async function until(what: string, test: () => Promise<boolean>, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe("a pool of two Docker hosts", () => {
  it("places trials on both hosts, loads the image into the second by id, and the records name the host", () => {
    const paths = twoHostProject(2);
    const result = kgate(
      ["--root", paths.root, "run", "demo", "--agent", "oracle", "-n", "4", "--concurrency", "2", "--json"],
      { timeoutMs: 240_000 },
    );
    expect(result.code, result.stderr).toBe(0);
    const { records } = JSON.parse(result.stdout) as { records: TrialRecord[] };
    expect(records).toHaveLength(4);
    for (const r of records) expect(r.verdict.status).toBe("pass");
    // Two at once, one slot per host: the first two trials start together, one on each host.
    const hosts = new Set(records.map((r) => r.provenance?.host));
    expect(hosts).toEqual(new Set(["here", "there"]));
    expect(result.stderr).toMatch(/host there: loading kgate-sandbox:/);
  }, 300_000);

  it("the loaded image has the first host's id, and `sandbox doctor` checks each host", async () => {
    const ref = sandboxImage();
    expect(await remote.imageId(ref)).toBe(await local.imageId(ref));
    const paths = twoHostProject(0);
    const doctor = kgate(["--root", paths.root, "sandbox", "doctor", "--json"]);
    const out = JSON.parse(doctor.stdout) as {
      hosts: Array<{
        host: string;
        ok: boolean;
        capacity: number;
        checks: Array<{ name: string; ok: boolean }>;
      }>;
    };
    expect(out.hosts.map((h) => [h.host, h.capacity])).toEqual([
      ["here", 1],
      ["there", 1],
    ]);
    for (const h of out.hosts) {
      expect(h.checks.find((c) => c.name === "daemon")?.ok).toBe(true);
      expect(h.checks.find((c) => c.name === "image")?.ok).toBe(true);
    }
  }, 120_000);

  it("an interrupted run's containers (and volumes) are removed on every host of the pool", async () => {
    const paths = twoHostProject(0);
    const runId = `interrupted-pool-${process.pid}`;
    const labels = { [LABEL]: "1", [LABEL_RUN]: runId };
    // One stopped container of the run on each daemon, with a labelled tmpfs volume, as a trial makes
    // (the second daemon has the sandbox image since the first test placed a trial there).
    const create = (client: DockerClient) =>
      client.createContainer({
        image: sandboxImage(),
        cmd: ["true"],
        user: "1000:1000",
        workdir: "/",
        env: {},
        labels,
        network: false,
        memoryBytes: 64 * 1024 * 1024,
        nanoCpus: 1e9,
        pids: 16,
        readOnlyRoot: true,
        volumes: [{ target: "/tmp/disk", labels, options: { type: "tmpfs", device: "tmpfs", o: "size=1m" } }],
        tmpfs: {},
      });
    await Promise.all([create(local), create(remote)]);
    const results = await removeRunEverywhere(paths, runId);
    // Config order: "here" then "there", one container each; the remote one is what the old
    // default-daemon-only removal left behind.
    expect(results).toEqual([
      { host: "here", removed: 1 },
      { host: "there", removed: 1 },
    ]);
    for (const client of [local, remote]) {
      expect(await client.listContainers([`${LABEL_RUN}=${runId}`])).toEqual([]);
      expect(await client.listVolumes([`${LABEL_RUN}=${runId}`])).toEqual([]);
    }
  }, 120_000);

  it("a SIGKILL'd run's containers are swept on both hosts by `sandbox reap`", async () => {
    const paths = twoHostProject(60);
    const runId = "killed-pool";
    const { child, done } = runInBackground(paths.root, runId, 2);
    const onBoth = async () =>
      (await local.listContainers([`${LABEL_RUN}=${runId}`])).length === 1 &&
      (await remote.listContainers([`${LABEL_RUN}=${runId}`])).length === 1;
    await until("a container of the run on each host", onBoth);
    child.kill("SIGKILL");
    await done;
    const reaped = kgate(["--root", paths.root, "sandbox", "reap", "--json"]);
    expect(reaped.code, reaped.stderr).toBe(0);
    const removed = (JSON.parse(reaped.stdout) as { removed: Array<{ run: string; host: string }> }).removed;
    const hosts = removed.filter((c) => c.run === runId).map((c) => c.host);
    // Only this reap reaches the second daemon; on the shared first daemon any other kgate process
    // that starts (another test file, say) may sweep the dead run's container first.
    expect(hosts).toContain("there");
    expect(hosts.every((h) => h === "here" || h === "there")).toBe(true);
    expect(await local.listContainers([`${LABEL_RUN}=${runId}`])).toEqual([]);
    expect(await remote.listContainers([`${LABEL_RUN}=${runId}`])).toEqual([]);
  }, 180_000);

  it("a host stopped mid-run: its trial ends as host-down and is retried on the other host, every trial once", async () => {
    const paths = twoHostProject(4);
    const runId = "host-stops";
    const { done } = runInBackground(paths.root, runId, 3);
    await until(
      "a trial on the second host",
      async () => (await remote.listContainers([`${LABEL_RUN}=${runId}`])).length === 1,
    );
    await second.stop();
    const result = await done;
    expect(result.code, result.stderr).toBe(0);
    const { records, problems } = readTrialRecords(path.join(paths.runs, runId));
    expect(problems).toEqual([]);
    const failed = records.filter((r) => r.error !== null);
    // Trials on the stopped host end as host-down there (not counted); each is retried on "here".
    expect(failed.length).toBeGreaterThan(0);
    for (const r of failed) expect([r.error?.kind, r.provenance?.host]).toEqual(["host-down", "there"]);
    // 3 slots, each with exactly one passing record: nothing lost, nothing run twice to a verdict.
    const finals = records.filter((r) => r.error === null);
    expect(finals.map((r) => r.index).sort()).toEqual([0, 1, 2]);
    for (const r of finals) expect(r.verdict.status).toBe("pass");
    for (const f of failed) expect(finals.find((r) => r.index === f.index)?.provenance?.host).toBe("here");
    expect(result.stderr).toMatch(/host there is down/);
  }, 240_000);
});
