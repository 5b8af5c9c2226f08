// The Docker provider's disk cap (red-team item 11): every writable folder of a sandbox is a tmpfs
// volume of limits.diskMb; writing past it is ENOSPC, judged by blocks and inodes on every writable
// place, and no volume outlives its sandbox. A trial that fills its disk failing as disk-full (the
// agent's) and a SIGKILLed run's volumes swept are the conformance suite's (sandbox-conformance).
import { spawnSync } from "node:child_process";
import { appendFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { oracleAgent } from "../src/agents/index.ts";
import { DockerClient } from "../src/sandbox/docker/client.ts";
import { DockerSandbox } from "../src/sandbox/docker/container.ts";
import { LABEL, LABEL_OWNER, LABEL_RUN, SANDBOX_WORKDIR } from "../src/sandbox/index.ts";
import { diskMbOf } from "../src/task/index.ts";
import { runTrial } from "../src/trial/index.ts";
import { kgate } from "./support/cli.ts";
import { providerSandbox, sandboxTarget } from "./support/engine.ts";
import { demoTask, sandboxImage } from "./support/sandbox.ts";

const docker = new DockerClient();
const volumesOf = (runId: string) => docker.listVolumes([`${LABEL}=1`, `${LABEL_RUN}=${runId}`]);

/** 64 MiB of zeros into `file`: four times a 16 MiB cap. */
const fill = (file: string) => `dd if=/dev/zero of=${file} bs=1M count=64`;

describe("limits.diskMb", () => {
  it("defaults to half the memory limit, at least 16 MiB", () => {
    // 1024 / 2 = 512; 20 / 2 = 10, raised to 16; a stated 300 wins over 1024 / 2.
    expect(diskMbOf({ memoryMb: 1024 })).toBe(512);
    expect(diskMbOf({ memoryMb: 20 })).toBe(16);
    expect(diskMbOf({ memoryMb: 1024, diskMb: 300 })).toBe(300);
  });

  it("an environment bigger than diskMb is an error of task.json's limits.diskMb (kgate list)", () => {
    const demo = demoTask({
      id: "big-env",
      spec: (s) => {
        s.limits = { ...s.limits, memoryMb: 256, diskMb: 16 };
      },
    });
    // 17 MiB = 17 * 1024 * 1024 = 17,825,792 bytes, over the 16 MiB disk (and under the 64 MiB file cap).
    writeFileSync(path.join(demo.task.dir, "environment", "huge.bin"), Buffer.alloc(17 * 1024 * 1024));
    const listed = kgate(["--root", demo.paths.root, "list", "--json"]);
    expect(listed.code).toBe(1);
    const task = (
      JSON.parse(listed.stdout) as { tasks: Array<{ id: string; problems: Array<{ text: string }> }> }
    ).tasks[0]!;
    const text = task.problems.map((p) => p.text).join("\n");
    expect(text).toContain("tasks/big-env/task.json: limits.diskMb: environment/ holds");
    expect(text).toContain("over the sandbox's disk of 16 MiB");
  });

  it("caps /home/agent and an extra writable folder, each a seeded tmpfs volume removed with the sandbox", async () => {
    const runId = `test-disk-box-${process.pid}`;
    const box = await providerSandbox({
      image: sandboxImage(),
      limits: { cpus: 1, memoryMb: 256, pids: 64, diskMb: 16 },
      labels: { [LABEL]: "1", [LABEL_RUN]: runId },
      requirements: { writable: ["/var/tmp"] },
    });
    try {
      expect(await volumesOf(runId)).toHaveLength(2);
      // Seeded from the image: its dot files, and the work directory owned by the agent.
      const seeded = await box.exec(["bash", "-c", "stat -c '%u %n' /home/agent/work; ls -A /home/agent"]);
      expect(seeded.stdout).toMatch(/^1000 \/home\/agent\/work\n/);
      expect(seeded.stdout).toContain(".bashrc");
      for (const file of ["/home/agent/work/big", "/var/tmp/big"]) {
        const dd = await box.exec(["bash", "-c", fill(file)]);
        expect(dd.exitCode).not.toBe(0);
        expect(dd.stderr).toContain("No space left on device");
        // At most the 16 MiB cap landed: 16 * 1024 * 1024 = 16,777,216 bytes.
        const size = await box.exec(["stat", "-c", "%s", file]);
        expect(Number(size.stdout)).toBeLessThanOrEqual(16_777_216);
      }
      expect(await box.fullFolder()).toMatch(/^\/home\/agent \(\d+ of 16384 KiB used\)$/);
      // The stop freezes every process: the volume's files stay readable for copy-out.
      await box.stop();
      expect((await box.stat("big"))?.size).toBeGreaterThan(0);
    } finally {
      await box.remove();
    }
    expect(await volumesOf(runId)).toEqual([]);
  }, 60_000);

  it("sends the seed with the first copy-in, in one extraction, and the volumes are anonymous ones gone with rm -v", async () => {
    const runId = `test-disk-seed-${process.pid}`;
    const since = Math.floor(Date.now() / 1000);
    const box = await providerSandbox({
      image: sandboxImage(),
      limits: { cpus: 1, memoryMb: 256, pids: 64, diskMb: 16 },
      labels: { [LABEL]: "1", [LABEL_RUN]: runId },
    });
    try {
      await box.putFiles(SANDBOX_WORKDIR, [{ path: "data/in.txt", bytes: Buffer.from("in\n") }]);
      const home = await box.exec([
        "bash",
        "-c",
        "stat -c '%u %a %n' /home/agent/work /home/agent/work/data/in.txt; cat data/in.txt; ls -A /home/agent",
      ]);
      expect(home.stdout).toMatch(
        /^1000 755 \/home\/agent\/work\n1000 644 \/home\/agent\/work\/data\/in.txt\nin\n/,
      );
      expect(home.stdout).toContain(".bashrc");
      // Before: one extraction for the seed at create and one for the copy-in.
      const extractions = spawnSync(
        "docker",
        ["events", "--since", String(since), "--until", String(Math.ceil(Date.now() / 1000) + 1)].concat([
          "--filter",
          `container=${box.id}`,
          "--filter",
          "event=extract-to-dir",
          "--format",
          "{{.Action}}",
        ]),
        { encoding: "utf8" },
      );
      expect(extractions.stdout.trim().split("\n")).toEqual(["extract-to-dir"]);
      // Anonymous volumes, with the container's labels (the reaper's way to find a leftover one).
      const names = (await volumesOf(runId)).map((v) => v.name);
      expect(names).toHaveLength(1);
      expect(names[0]).toMatch(/^[0-9a-f]{64}$/);
    } finally {
      await box.remove();
    }
    expect(await volumesOf(runId)).toEqual([]);
  }, 60_000);

  it("leaves the agent no writable folder without a size cap", async () => {
    const box = await providerSandbox({
      image: sandboxImage(),
      limits: { cpus: 1, memoryMb: 256, pids: 64, diskMb: 16 },
      labels: { [LABEL]: "1", [LABEL_RUN]: `test-disk-writable-${process.pid}` },
    });
    try {
      // Every folder uid 1000 may write to (the read-only root answers EROFS), with its file system
      // and size in KiB.
      const script =
        "find / \\( -path /proc -o -path /sys \\) -prune -o -writable -type d -print 2>/dev/null | sort | " +
        'while read d; do echo "$d $(stat -f -c %T "$d") $(df -k --output=size "$d" | tail -1 | tr -d " ")"; done';
      const found = await box.exec(["bash", "-c", script]);
      // diskMb 16 -> 16 * 1024 = 16384 KiB; /tmp is 256 / 2 = 128 MiB = 131072 KiB; /dev/shm is
      // Docker's 64 MiB = 65536 KiB; /dev/mqueue holds message queues (bounded by RLIMIT_MSGQUEUE).
      expect(found.stdout.trim().split("\n")).toEqual([
        "/dev/mqueue mqueue 0",
        "/dev/shm tmpfs 65536",
        "/home/agent tmpfs 16384",
        "/home/agent/work tmpfs 16384",
        "/tmp tmpfs 131072",
      ]);
    } finally {
      await box.remove();
    }
  }, 60_000);

  it("judges inodes and the other writable places too: /home/agent out of files, /tmp and /dev/shm out of blocks (round 2)", async () => {
    const box = await providerSandbox({
      image: sandboxImage(),
      limits: { cpus: 1, memoryMb: 256, pids: 64, diskMb: 16 },
      labels: { [LABEL]: "1", [LABEL_RUN]: `test-disk-inodes-${process.pid}` },
    });
    try {
      // Empty files take no blocks: 20,000 of them in the 16 MiB home. Its tmpfs holds 16 * 1024 =
      // 16,384 inodes (one per KiB), some already taken by the seed: ENOSPC before 20,000. (Before
      // issue 29 the home had tmpfs's default of half the host's memory pages: all 20,000 made.)
      const files = await box.exec([
        "python3",
        "-c",
        "import os\nmade=0\ntry:\n  for i in range(20000): open('/home/agent/work/f%d' % i, 'w').close(); made += 1\nexcept OSError as e: print(e.strerror)\nprint(made)",
      ]);
      const [error, made] = files.stdout.trim().split("\n");
      expect(error).toBe("No space left on device");
      expect(Number(made)).toBeLessThan(16_384);
      expect(await box.fullFolder()).toBe("/home/agent (16384 of 16384 inodes used)");
      await box.exec(["bash", "-c", "rm -f /home/agent/work/f*"]);
      expect(await box.fullFolder()).toBeNull();
      // /tmp: 256 / 2 = 128 MiB = 131,072 KiB; /dev/shm: 64 MiB = 65,536 KiB (not judged before)
      for (const [place, kib] of [
        ["/tmp", 131_072],
        ["/dev/shm", 65_536],
      ] as const) {
        const dd = await box.exec(["bash", "-c", `dd if=/dev/zero of=${place}/big bs=1M count=200`]);
        expect(dd.stderr).toContain("No space left on device");
        expect(await box.fullFolder()).toBe(`${place} (${kib} of ${kib} KiB used)`);
        await box.exec(["rm", "-f", `${place}/big`]);
      }
      // every place the agent can write to has an inode cap: one per KiB of its size
      const inodes = await box.exec([
        "bash",
        "-c",
        "df --output=target,itotal /home/agent /tmp /dev/shm | tail -3",
      ]);
      expect(
        inodes.stdout
          .trim()
          .split("\n")
          .map((l) => l.trim().split(/\s+/)),
      ).toEqual([
        ["/home/agent", "16384"],
        ["/tmp", "131072"],
        ["/dev/shm", "65536"],
      ]);
    } finally {
      await box.remove();
    }
  }, 120_000);

  it("a trial that fills /dev/shm fails as disk-full naming it (before: solution-failed)", async () => {
    const demo = demoTask({
      id: "shm-filler",
      spec: (s) => {
        s.limits = { ...s.limits, memoryMb: 256, diskMb: 16, timeoutSec: 60 };
      },
    });
    const solve = path.join(demo.task.dir, "solution", "solve.sh");
    // 80 MiB into the 64 MiB /dev/shm (dd's exit code, 1, is the script's)
    appendFileSync(solve, "\ndd if=/dev/zero of=/dev/shm/fill.bin bs=1M count=80\n");
    const runId = `test-disk-shm-${process.pid}`;
    const record = await runTrial({
      ...demo,
      agent: oracleAgent(),
      condition: "+A",
      runId,
      runDir: path.join(demo.paths.runs, runId),
      index: 0,
      ...sandboxTarget(),
    });
    expect(record.error).toMatchObject({ kind: "disk-full", owner: "agent" });
    // 64 MiB = 65,536 KiB of /dev/shm used, all of it
    expect(record.error?.message).toMatch(
      /^\/dev\/shm \(65536 of 65536 KiB used\) is full; the agent phase ended with solution-failed/,
    );
    expect(record.verdict.status).toBe("pass");
  }, 120_000);
});

describe("the image's seed of a writable folder", () => {
  it("is read from a container that belongs to no run: a run's containers are its trials' only", async () => {
    const seen: Array<Record<string, string>> = [];
    // a client of its own, so its seed is read afresh (seeds are kept per client and image)
    const recording = new (class extends DockerClient {
      override createSeedContainer(image: string, labels: Record<string, string>) {
        seen.push(labels);
        return super.createSeedContainer(image, labels);
      }
    })();
    const runId = `test-seed-labels-${process.pid}`;
    const box = await DockerSandbox.create({
      image: sandboxImage(),
      limits: { cpus: 1, memoryMb: 256, pids: 64, diskMb: 16 },
      labels: { [LABEL]: "1", [LABEL_RUN]: runId, [LABEL_OWNER]: "me/1/1" },
      docker: recording,
    });
    try {
      expect(seen).toEqual([{ [LABEL]: "1", [LABEL_OWNER]: "me/1/1" }]);
    } finally {
      await box.remove();
    }
  });
});
