// The hardened container behind the Sandbox interface: no network, non-root, no capabilities,
// read-only root, limits from task.json, exec with timeout / caps / stdin, file reads and writes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DockerClient } from "../src/sandbox/docker/client.ts";
import { DockerSandbox } from "../src/sandbox/docker/container.ts";
import { LABEL_RUN, SandboxFileError } from "../src/sandbox/index.ts";
import { sandboxImage } from "./support/sandbox.ts";

const RUN = `test-container-${process.pid}`;
let box: DockerSandbox;

beforeAll(async () => {
  box = await DockerSandbox.create({
    image: sandboxImage(),
    limits: { cpus: 0.5, memoryMb: 256, pids: 64 },
    labels: { kgate: "1", [LABEL_RUN]: RUN },
  });
});
afterAll(async () => {
  await box?.remove();
});

const sh = (script: string, options = {}) => box.exec(["bash", "-c", script], options);

describe("a sandbox container is hardened by default", () => {
  it("has no network: only the loopback interface, and a connect attempt fails", async () => {
    const interfaces = await sh("ls /sys/class/net");
    expect(interfaces.stdout.trim().split("\n")).toEqual(["lo"]);
    const connect = await box.exec([
      "python3",
      "-c",
      "import socket; socket.create_connection(('1.1.1.1', 53), timeout=3); print('connected')",
    ]);
    expect(connect.exitCode).not.toBe(0);
    expect(connect.stdout).not.toContain("connected");
    expect(connect.stderr).toMatch(/Network is unreachable|OSError/);
  });

  it("runs as the non-root user 1000 in the work directory, with no capabilities and no new privileges", async () => {
    const result = await sh("id -u; id -g; pwd; grep -E '^(CapEff|CapPrm|NoNewPrivs)' /proc/self/status");
    const lines = result.stdout.trim().split("\n");
    expect(lines.slice(0, 3)).toEqual(["1000", "1000", "/home/agent/work"]);
    expect(result.stdout).toMatch(/CapEff:\s+0000000000000000/);
    expect(result.stdout).toMatch(/CapPrm:\s+0000000000000000/);
    expect(result.stdout).toMatch(/NoNewPrivs:\s+1/);
  });

  it("has a read-only root, and a writable work directory, home and /tmp", async () => {
    const ro = await sh("touch /usr/local/x");
    expect(ro.exitCode).not.toBe(0);
    expect(ro.stderr).toMatch(/Read-only file system/);
    const rw = await sh("touch /home/agent/work/a /home/agent/b /tmp/c && echo ok");
    expect(rw.stdout).toBe("ok\n");
  });

  it("applies the memory and pids limits from task.json to the cgroup", async () => {
    const result = await sh(
      "cat /sys/fs/cgroup/memory/memory.limit_in_bytes /sys/fs/cgroup/pids/pids.max 2>/dev/null || cat /sys/fs/cgroup/memory.max /sys/fs/cgroup/pids.max",
    );
    expect(result.stdout.trim().split("\n")).toEqual([String(256 * 1024 * 1024), "64"]);
  });

  it("reaps orphaned processes, so they do not pile up as zombies against the pids limit", async () => {
    await sh("for i in 1 2 3 4 5; do (sleep 0.2 &); done");
    await new Promise((r) => setTimeout(r, 1000));
    const states = await sh("cut -d' ' -f3 /proc/[0-9]*/stat");
    expect(states.stdout.split("\n").filter((s) => s === "Z")).toEqual([]);
  });

  it("carries the kgate labels so that a reaper can find it", async () => {
    const found = await new DockerClient().listContainers([`${LABEL_RUN}=${RUN}`]);
    expect(found.map((c) => c.id)).toEqual([box.id]);
  });
});

describe("exec", () => {
  it("returns exit code, stdout and stderr separately; a non-zero exit is a result", async () => {
    const result = await sh("echo out; echo err >&2; exit 3");
    expect(result).toMatchObject({ exitCode: 3, stdout: "out\n", stderr: "err\n", timedOut: false });
  });

  it("ends a command at its timeout and says so", async () => {
    const result = await sh("echo started; sleep 30", { timeoutSec: 1 });
    expect(result.timedOut).toBe(true);
    expect(result.exitCode).toBe(124);
    expect(result.stdout).toBe("started\n");
    expect(result.durationMs).toBeLessThan(10_000);
  });

  it("caps stdout and stderr and marks the truncation", async () => {
    const result = await sh("head -c 200000 /dev/zero | tr '\\0' x; head -c 10 /dev/zero >&2", {
      maxOutputBytes: 1000,
    });
    expect(result.stdout).toBe("x".repeat(1000));
    expect(result.stdoutTruncated).toBe(true);
    expect(result.stderrTruncated).toBe(false);
  });

  it("passes stdin, environment and working directory", async () => {
    await sh("mkdir -p sub");
    const result = await box.exec(["bash", "-c", 'cat; echo " $GREETING $(pwd)"'], {
      stdin: "from stdin",
      env: { GREETING: "hello" },
      cwd: "sub",
    });
    expect(result.stdout).toBe("from stdin hello /home/agent/work/sub\n");
  });

  it("rejects when its signal is aborted", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("stop now")), 300);
    await expect(sh("sleep 20", { signal: controller.signal })).rejects.toThrow("stop now");
  });
});

describe("files", () => {
  it("writes files owned by the sandbox user, creating folders, and reads them back byte for byte", async () => {
    const bytes = Buffer.from([0, 1, 2, 255, 10, 13]);
    await box.writeFile("deep/er/data.bin", bytes);
    expect(await box.readFile("deep/er/data.bin")).toEqual(bytes);
    const owner = await sh("stat -c '%u:%g %a' deep/er/data.bin deep/er");
    expect(owner.stdout).toBe("1000:1000 644\n1000:1000 755\n");
  });

  it("reports missing, too-large, not-a-file and outside-workdir with SandboxFileError reasons", async () => {
    await sh("mkdir -p adir; head -c 5000 /dev/zero > big");
    const reasonOf = (p: Promise<unknown>) =>
      p.then(
        () => "no error",
        (err) => (err instanceof SandboxFileError ? err.reason : `other: ${err}`),
      );
    expect(await reasonOf(box.readFile("nothing-here"))).toBe("missing");
    expect(await reasonOf(box.readFile("big", { maxBytes: 100 }))).toBe("too-large");
    expect(await reasonOf(box.readFile("adir"))).toBe("not-a-file");
    expect(await reasonOf(box.readFile("../../../etc/passwd"))).toBe("outside-workdir");
    expect(await reasonOf(box.writeFile("/etc/evil", "x"))).toBe("outside-workdir");
  });
});
