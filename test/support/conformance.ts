// Test support: the provider conformance suite. Any sandbox provider, made from the `sandbox` section
// of kgate.config.json as `kgate run` makes it, is held to what the trial engine relies on: exec and
// files, timeouts, output caps, hardening and limits, stop then collect, a full disk as the agent's
// failure, exec-stream backpressure, a run's removal and the sweep after a killed process. A provider's
// test file calls providerConformance once (test/sandbox-conformance.docker.test.ts).
import { spawn } from "node:child_process";
import { appendFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { oracleAgent } from "../../src/agents/index.ts";
import { ownerLabel } from "../../src/common/index.ts";
import type { ProjectPaths } from "../../src/project.ts";
import {
  LABEL,
  LABEL_OWNER,
  LABEL_RUN,
  putFiles,
  reapLeftovers,
  SANDBOX_WORKDIR,
  SandboxFileError,
  type SandboxImage,
  type SandboxProvider,
  SandboxUnavailableError,
  sandboxProviderFor,
  type TrialSandbox,
} from "../../src/sandbox/index.ts";
import { runTrial } from "../../src/trial/index.ts";
import { tempProject } from "./project.ts";
import { demoTask, sandboxImage } from "./sandbox.ts";

export interface ConformanceTarget {
  /** What the tests call the provider. */
  name: string;
  /** kgate.config.json's `sandbox` section that makes it (the suite adds `image`: the tests' image). */
  sandbox: Record<string, unknown>;
  /** What the provider still holds of a run (its sandboxes and what was made for them), by name. */
  leftovers(runId: string): Promise<string[]>;
}

const CHILD = path.resolve(import.meta.dirname, "provider-child.ts");

/** A project whose kgate.config.json makes the target's provider with the tests' image. */
export function configured(target: ConformanceTarget, paths: ProjectPaths): ProjectPaths {
  writeFileSync(
    paths.config,
    JSON.stringify({ sandbox: { ...target.sandbox, image: sandboxImage() } }, null, 2),
  );
  return paths;
}

export function providerConformance(target: ConformanceTarget): void {
  const run = (what: string) => `conform-${what}-${process.pid}`;
  const labels = (runId: string) => ({ [LABEL]: "1", [LABEL_RUN]: runId, [LABEL_OWNER]: ownerLabel() });
  let paths: ProjectPaths;
  let provider: SandboxProvider;
  let image: SandboxImage;
  let box: TrialSandbox;
  const create = (runId: string, diskMb = 64) =>
    provider.create({
      image: image.ref,
      limits: { cpus: 1, memoryMb: 256, pids: 64, diskMb },
      deadlineSec: 900,
      network: false,
      labels: labels(runId),
    });
  const sh = (script: string, options = {}) => box.exec(["bash", "-c", script], options);

  describe(`the ${target.name} provider`, () => {
    beforeAll(async () => {
      paths = configured(target, tempProject("file"));
      provider = sandboxProviderFor(paths);
      image = await provider.prepareImage(paths);
      box = await create(run("shared"));
    }, 120_000);
    afterAll(async () => {
      await box?.remove();
    });

    describe("exec", () => {
      it("returns the exit code, stdout and stderr apart; a non-zero exit is a result", async () => {
        expect(await sh("echo out; echo err >&2; exit 3")).toMatchObject({
          exitCode: 3,
          stdout: "out\n",
          stderr: "err\n",
          timedOut: false,
        });
      });

      it("passes stdin, the environment and the working directory", async () => {
        await sh("mkdir -p sub");
        const r = await box.exec(["bash", "-c", 'cat; echo " $GREETING $(pwd)"'], {
          stdin: "from stdin",
          env: { GREETING: "hello" },
          cwd: "sub",
        });
        expect(r.stdout).toBe(`from stdin hello ${SANDBOX_WORKDIR}/sub\n`);
      });

      it("ends a command at its timeout and says so", async () => {
        const r = await sh("echo started; sleep 60", { timeoutSec: 1 });
        expect(r).toMatchObject({ timedOut: true, exitCode: 124, stdout: "started\n" });
      });

      it("rejects with its signal's reason when the signal aborts", async () => {
        const controller = new AbortController();
        setTimeout(() => controller.abort(new Error("stop now")), 300);
        await expect(sh("sleep 20", { signal: controller.signal })).rejects.toThrow("stop now");
      });

      it("caps stdout and stderr at maxOutputBytes and marks the truncation", async () => {
        const r = await sh("head -c 200000 /dev/zero | tr '\\0' x; head -c 10 /dev/zero >&2", {
          maxOutputBytes: 1000,
        });
        expect(r.stdout).toBe("x".repeat(1000));
        expect([r.stdoutTruncated, r.stderrTruncated]).toEqual([true, false]);
      });
    });

    describe("files", () => {
      it("writes bytes owned by the sandbox user, with parent folders, and reads them back", async () => {
        const bytes = Buffer.from([0, 1, 2, 255, 10, 13]);
        await box.writeFile("deep/er/data.bin", bytes);
        expect(await box.readFile("deep/er/data.bin")).toEqual(bytes);
        await putFiles(box, SANDBOX_WORKDIR, [{ path: "put/a/b.txt", bytes: Buffer.from("b\n") }]);
        const owner = await sh("stat -c '%u:%g %a' deep/er/data.bin deep/er put/a/b.txt; cat put/a/b.txt");
        expect(owner.stdout).toBe("1000:1000 644\n1000:1000 755\n1000:1000 644\nb\n");
      });

      it("tells missing, too-large, not-a-file and outside-workdir apart (SandboxFileError)", async () => {
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

    describe("hardening and limits", () => {
      it("has no network, runs as uid 1000 without capabilities, and its root is read-only", async () => {
        const connect = await box.exec([
          "python3",
          "-c",
          "import socket; socket.create_connection(('1.1.1.1', 53), timeout=3); print('connected')",
        ]);
        expect(connect.exitCode).not.toBe(0);
        expect(connect.stdout).not.toContain("connected");
        const who = await sh("id -u; grep -E '^(CapEff|NoNewPrivs)' /proc/self/status; touch /usr/x 2>&1");
        expect(who.stdout).toMatch(/^1000\nCapEff:\s+0{16}\nNoNewPrivs:\s+1\n.*Read-only file system/);
      });

      it("holds the memory and pids limits, and reaps orphans (no zombies against the pids limit)", async () => {
        // 256 MiB of memory: a 1 GiB allocation is killed (137) or refused, never granted
        const hog = await box.exec(["python3", "-c", "b = bytearray(1024 * 1024 * 1024); print('granted')"]);
        expect(hog.exitCode).not.toBe(0);
        expect(hog.stdout).not.toContain("granted");
        // 64 pids: forking 200 sleepers stops short of 64 with EAGAIN (11); the parent waits for them,
        // so the pids are free again for the tests after
        const forks = await box.exec([
          "python3",
          "-c",
          "import os, time\nn = 0\ntry:\n  for i in range(200):\n    if os.fork() == 0: time.sleep(2); os._exit(0)\n    n += 1\nexcept OSError as e: print(e.errno)\nprint(n)\nfor i in range(n): os.wait()",
        ]);
        const [errno, made] = forks.stdout.trim().split("\n");
        expect(errno).toBe("11");
        expect(Number(made)).toBeLessThan(64);
        await sh("for i in 1 2 3 4 5; do (sleep 0.2 &); done; sleep 1");
        const states = await sh("cut -d' ' -f3 /proc/[0-9]*/stat");
        expect(states.stdout.split("\n").filter((s) => s === "Z")).toEqual([]);
      }, 60_000);
    });

    describe("the exec stream", () => {
      it("holds the command back while its stdout is not read (backpressure), then delivers every byte", async () => {
        if (!box.execStream) return;
        // 32 MiB = 33,554,432 bytes: more than the pipes and sockets on the way can hold
        const stream = await box.execStream(["bash", "-c", "head -c 33554432 /dev/zero; touch .streamed"]);
        stream.stdout.pause();
        for (let i = 0; i < 5; i++) {
          expect((await sh("test -e .streamed && echo done || echo held")).stdout).toBe("held\n");
        }
        let bytes = 0;
        stream.stdout.on("data", (chunk: Buffer) => {
          bytes += chunk.length;
        });
        stream.stdout.resume();
        expect(await stream.exit).toBe(0);
        stream.close();
        expect(bytes).toBe(33_554_432);
        expect((await sh("test -e .streamed && echo done")).stdout).toBe("done\n");
      }, 60_000);
    });

    describe("stop then collect", () => {
      it("no agent process runs after stop and none starts; the files stay readable and are collected by their rules", async () => {
        const stopped = await create(run("stop"));
        try {
          const setup = await stopped.exec([
            "bash",
            "-c",
            [
              "set -e",
              "mkdir -p out",
              "printf 'item,value\\nwidget,3.36\\n' > out/good.csv",
              "ln -s /etc/passwd out/passwd.csv",
              "ln -s /etc linked",
              "ln -s ../../.bashrc out/home.csv",
              "mkfifo out/pipe.csv",
              "truncate -s 1G out/huge.csv",
              "mkdir out/folder.csv",
              "(while :; do echo beat >> beats; sleep 0.05; done) >/dev/null 2>&1 &",
            ].join("; "),
          ]);
          expect(setup.exitCode, setup.stderr).toBe(0);
          await stopped.stop();
          await expect(stopped.exec(["true"])).rejects.toBeInstanceOf(SandboxUnavailableError);
          if (stopped.execStream)
            await expect(stopped.execStream(["cat"])).rejects.toBeInstanceOf(SandboxUnavailableError);
          const before = await stopped.readFile("beats");
          await new Promise((resolve) => setTimeout(resolve, 300));
          expect((await stopped.readFile("beats")).length).toBe(before.length);
          const declared = [
            "out/good.csv",
            "out/passwd.csv",
            "linked/passwd",
            "out/huge.csv",
            "out/folder.csv",
          ];
          const paths = [...declared, "out/missing.csv", "../etc/passwd", "out/home.csv", "out/pipe.csv"];
          const more = ["/etc/passwd", "nowhere/x.csv"];
          const got = await stopped.collectOutputs(
            [...paths, ...more].map((p) => ({ path: p, maxBytes: 65_536 })),
          );
          expect(got.map((o) => o.record.status)).toEqual([
            "collected",
            "rejected",
            "rejected",
            "rejected",
            "rejected",
            "missing",
            "rejected",
            "rejected",
            "rejected",
            "rejected",
            "missing",
          ]);
          const reasons = got.map((o) => o.record.reason ?? "");
          expect(reasons[2]).toMatch(/folder linked is a symbolic link to \/etc/);
          expect(reasons[4]).toBe("out/folder.csv is a folder, not a file");
          expect(reasons[5]).toBe("the file was not written");
          expect(reasons[6]).toMatch(/path traversal: .* contains a "\.\." segment/);
          expect(reasons[7]).toMatch(/symbolic link to \/home\/agent\/\.bashrc outside the work directory/);
          expect(reasons[8]).toBe("out/pipe.csv is not a regular file");
          expect(reasons[9]).toMatch(/path traversal: .* is absolute/);
          expect(reasons[10]).toBe("folder nowhere/ does not exist");
          expect(got[0]?.bytes?.toString()).toBe("item,value\nwidget,3.36\n");
          // 1 GiB = 1,073,741,824 bytes, judged by its size, never transferred
          expect(got[3]?.record.reason).toBe(
            "out/huge.csv is 1073741824 bytes, over the cap of 65536 bytes (outputs[].maxBytes)",
          );
          expect(got[1]?.record.reason).toMatch(/symbolic link to \/etc\/passwd outside the work directory/);
        } finally {
          await stopped.remove();
        }
      }, 120_000);
    });

    describe("a full disk", () => {
      it("a trial that fills its disk fails as disk-full, the agent's, its earlier output collected", async (ctx) => {
        if (!provider.diskCap) ctx.skip();
        const demo = demoTask({
          id: "disk-filler",
          spec: (s) => {
            s.limits = { ...s.limits, memoryMb: 256, diskMb: 16, timeoutSec: 120 };
          },
        });
        // the scaffold's solution writes the right output, then 64 MiB go into a 16 MiB disk (dd exits 1)
        appendFileSync(
          path.join(demo.task.dir, "solution", "solve.sh"),
          "\ndd if=/dev/zero of=fill.bin bs=1M count=64\n",
        );
        const runId = run("disk");
        const record = await runTrial({
          ...demo,
          agent: oracleAgent(),
          condition: "+A",
          runId,
          runDir: path.join(demo.paths.runs, runId),
          index: 0,
          provider,
          image,
        });
        expect(record.error).toMatchObject({ kind: "disk-full", owner: "agent" });
        expect(record.error?.message).toContain("No space left on device");
        expect(record.outputs[0]).toMatchObject({ path: "output/result.csv", status: "collected" });
        expect(record.verdict.status).toBe("pass");
        expect(record.provenance?.diskCap).toEqual({ mechanism: provider.diskCap, mb: 16 });
        expect(await target.leftovers(runId)).toEqual([]);
      }, 180_000);
    });

    describe("cleanup", () => {
      it("removeRun removes a run's sandboxes, and what was made for them, at once", async (ctx) => {
        if (!provider.removeRun) ctx.skip();
        const runId = run("remove");
        await Promise.all([create(runId), create(runId)]);
        expect((await target.leftovers(runId)).length).toBeGreaterThanOrEqual(2);
        const sweeps = await provider.removeRun!(runId);
        expect(sweeps.reduce((n, s) => n + s.removed.length, 0)).toBe(2);
        expect(await target.leftovers(runId)).toEqual([]);
      }, 120_000);

      it("what a SIGKILLed process left is swept by the next sweep", async () => {
        const runId = run("killed");
        const child = spawn(process.execPath, ["--import", "tsx", CHILD, paths.root, runId], {
          stdio: ["ignore", "pipe", "inherit"],
        });
        const exited = new Promise((resolve) => child.on("exit", resolve));
        const ready = await new Promise<string>((resolve) =>
          child.stdout.once("data", (c: Buffer) => resolve(c.toString())),
        );
        expect(ready).toMatch(/^created /);
        expect((await target.leftovers(runId)).length).toBeGreaterThan(0);
        child.kill("SIGKILL");
        await exited;
        await reapLeftovers(provider);
        expect(await target.leftovers(runId)).toEqual([]);
      }, 120_000);
    });
  });
}
