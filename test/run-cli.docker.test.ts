// `kgate run` and `kgate sandbox doctor` through the real bin: records, outputs, usage errors, and
// what happens without a Docker daemon. Bad arguments the command itself refuses are asked in process
// through the real argv parser (no Node.js start each); the parser's own refusal through the bin.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { TrialRecord } from "../src/record/index.ts";
import { DockerClient } from "../src/sandbox/docker/client.ts";
import { LABEL, LABEL_OWNER } from "../src/sandbox/index.ts";
import { readTrialRecords } from "../src/trial/index.ts";
import { kgate } from "./support/cli.ts";
import { kgateInProcess } from "./support/cli-in-process.ts";
import { demoTask } from "./support/sandbox.ts";

const NO_DAEMON = { DOCKER_HOST: "unix:///nonexistent/docker.sock" };

describe("kgate run", () => {
  it("`run demo --agent oracle --condition +A -n 3` writes three records whose outputs are collected", () => {
    const { paths } = demoTask();
    const result = kgate([
      "--root",
      paths.root,
      "run",
      "demo",
      "--agent",
      "oracle",
      "--condition",
      "+A",
      "-n",
      "3",
      "--concurrency",
      "2",
      "--json",
    ]);
    expect(result.code, result.stderr).toBe(0);
    const out = JSON.parse(result.stdout) as { runId: string; runDir: string; records: TrialRecord[] };
    expect(out.records.map((r) => r.trialId)).toEqual([0, 1, 2].map((i) => `demo.with-A.oracle.${i}`));
    const { records, problems } = readTrialRecords(out.runDir);
    expect(problems).toEqual([]);
    expect(records).toHaveLength(3);
    for (const r of records) {
      expect(r.error).toBeNull();
      expect(r.verdict.status).toBe("pass");
      expect(r.outputs).toEqual([
        expect.objectContaining({ path: "output/result.csv", status: "collected" }),
      ]);
      const saved = path.join(out.runDir, "trials", r.trialId, "outputs", "output", "result.csv");
      expect(readFileSync(saved, "utf8")).toBe("item,value\r\nwidget,3.36\r\ngadget,5.60\r\n");
      expect(existsSync(path.join(out.runDir, r.trajectory!))).toBe(true);
    }
    expect(result.stderr).toMatch(/run \S+: 3 trial\(s\) of demo \+A with oracle, concurrency 2/);
  });

  it("prints one line per trial for people, and appends to an existing run with --run-id", () => {
    const { paths } = demoTask();
    const first = kgate([
      "--root",
      paths.root,
      "run",
      "demo",
      "--agent",
      "noop",
      "--condition",
      "-A",
      "--run-id",
      "r1",
    ]);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/demo\.without-A\.noop\.0\s+finish\s+outputs 0\/1\s+fail/);
    const second = kgate([
      "--root",
      paths.root,
      "run",
      "demo",
      "--agent",
      "oracle",
      "--condition",
      "variant:perturbed",
      "--run-id",
      "r1",
    ]);
    expect(second.code).toBe(0);
    const { records } = readTrialRecords(path.join(paths.runs, "r1"));
    expect(records.map((r) => r.condition)).toEqual(["-A", "variant:perturbed"]);
  });

  it("exits 2 with a clear message on bad arguments", async () => {
    const { paths } = demoTask();
    const cases: Array<[string[], RegExp]> = [
      [["demo", "--agent", "genius"], /unknown agent "genius" \(known: oracle, noop\)/],
      [["demo", "--agent", "oracle", "--condition", "+B"], /invalid condition "\+B"/],
      [["demo", "--agent", "oracle", "--condition", "variant:nope"], /has no variant "nope"/],
      [["demo", "--agent", "oracle", "-n", "0"], /-n must be an integer >= 1/],
      [["ghost", "--agent", "oracle"], /no task "ghost"/],
    ];
    for (const [args, message] of cases) {
      const result = await kgateInProcess(["--root", paths.root, "run", ...args]);
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stderr).toMatch(message);
    }
    const missing = kgate(["--root", paths.root, "run", "demo"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/required option '--agent <name>'/);
    expect(existsSync(paths.runs)).toBe(false);
  });

  it("without a Docker daemon it exits 2 and points to the doctor", () => {
    const { paths } = demoTask();
    const result = kgate(["--root", paths.root, "run", "demo", "--agent", "oracle"], { env: NO_DAEMON });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/is the Docker daemon running\?/);
    expect(result.stderr).toMatch(/kgate sandbox doctor/);
  });
});

describe("kgate sandbox doctor", () => {
  it("reports the daemon and the built image as ok (exit 0)", () => {
    const { paths } = demoTask();
    const result = kgate(["--root", paths.root, "sandbox", "doctor", "--json"]);
    expect(result.code, result.stdout).toBe(0);
    const report = JSON.parse(result.stdout) as { ok: boolean; checks: Array<{ name: string; ok: boolean }> };
    expect(report.checks.filter((c) => ["daemon", "image"].includes(c.name)).map((c) => c.ok)).toEqual([
      true,
      true,
    ]);
  });

  it("counts kgate's disk volumes beside its containers", async () => {
    const { paths } = demoTask();
    const docker = new DockerClient();
    // owned by a process of another host: no sweep of this machine's kgate commands removes it
    const name = `kgate-test-doctor-${process.pid}`;
    await docker.createVolume(name, { [LABEL]: "1", [LABEL_OWNER]: "elsewhere/1/1" }, {});
    try {
      const result = kgate(["--root", paths.root, "sandbox", "doctor", "--json"]);
      const report = JSON.parse(result.stdout) as { checks: Array<{ name: string; detail: string }> };
      const volumes = report.checks.find((c) => c.name === "leftover volumes");
      const [, total] = /^(\d+) kgate disk volume\(s\)/.exec(volumes?.detail ?? "") ?? [];
      expect(Number(total)).toBeGreaterThanOrEqual(1);
    } finally {
      await docker.removeVolume(name);
    }
  });

  it("says what is missing and how to fix it when the daemon is unreachable (exit 1)", () => {
    const result = kgate(["sandbox", "doctor"], { env: NO_DAEMON });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/missing daemon: .*is the Docker daemon running\?/);
    expect(result.stdout).toMatch(/fix: start the Docker daemon/);
  });
});
