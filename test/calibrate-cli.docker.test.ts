// `kgate calibrate` through the real bin with real containers (oracle and noop agents): usage
// errors, a full run with Table 1 and reports, resume after SIGKILL mid-run with exactly n records
// per cell and no container left, and a changed artefact that refuses resume.
import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { run as calibrateCommand } from "../src/commands/calibrate.ts";
import { UsageError } from "../src/errors.ts";
import type { ProjectPaths } from "../src/project.ts";
import { outcomeOf } from "../src/record/index.ts";
import { DockerClient } from "../src/sandbox/docker/client.ts";
import { LABEL, LABEL_RUN } from "../src/sandbox/index.ts";
import { readTrialRecords } from "../src/trial/index.ts";
import { KGATE_BIN, kgate } from "./support/cli.ts";
import { writeJson } from "./support/project.ts";
import { demoTask, sandboxImage } from "./support/sandbox.ts";

const CELLS = [
  { name: "oracle+A", agent: "oracle", condition: "+A", require: ">= 0.6" },
  { name: "noop-A", agent: "noop", condition: "-A", require: "= 0" },
];

/** A slow oracle, so that a signal lands while trials are in flight. */
const SLOW_ORACLE =
  "#!/usr/bin/env bash\nsleep 3\nmkdir -p output\nprintf 'item,value\\nwidget,3.36\\ngadget,5.60\\n' > output/result.csv\n";

function project(n: number, solution?: string): ProjectPaths {
  const { paths } = demoTask({ solution });
  writeJson(paths.config, { calibration: { n, cells: CELLS, concurrency: 2 } });
  return paths;
}

async function runContainers(runId: string): Promise<number> {
  const list = await new DockerClient().listContainers([`${LABEL}=1`, `${LABEL_RUN}=${runId}`]);
  return list.length;
}

/**
 * The indices of each cell's trials that count (pass or fail). An attempt lost to the infrastructure
 * (a loaded machine's Docker) is retried as a new attempt and does not count: it is left out here.
 */
function perCell(runDir: string): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const r of readTrialRecords(runDir).records) {
    if (outcomeOf(r) === "infra") continue;
    const key = `${r.agent.name} ${r.condition}`;
    out[key] = [...(out[key] ?? []), r.index].sort((a, b) => a - b);
  }
  return out;
}

/** Bounds a hang of a calibration through the real bin, not its speed (CI runs at load 15-30). */
const HANG_MS = 540_000;

describe("kgate calibrate (CLI)", () => {
  it("documents its options and refuses bad ones with exit 2", async () => {
    const help = kgate(["calibrate", "--help"]);
    expect(help.code).toBe(0);
    for (const option of [
      "--sequential",
      "--resume <run>",
      "--provider-concurrency <spec>",
      "--no-controls",
      "--json",
    ]) {
      expect(help.stdout).toContain(option);
    }
    const paths = project(2);
    const ctx = { paths, stdout: new PassThrough(), stderr: new PassThrough() };
    await expect(calibrateCommand(ctx, [], { resume: "x", n: "3" })).rejects.toThrow(
      new UsageError("--resume keeps the run's own plan; -n cannot change it (start a new run instead)"),
    );
    await expect(calibrateCommand(ctx, [], { cell: ["nonsense"] })).rejects.toThrow(
      /--cell "nonsense": expected name=agent:condition/,
    );
    await expect(calibrateCommand(ctx, [], { cell: ["x=opus:+A"] })).rejects.toThrow(
      /unknown agent configuration\(s\): opus/,
    );
    await expect(calibrateCommand(ctx, ["nope"], {})).rejects.toThrow(/no task "nope"/);
    writeFileSync(paths.config, JSON.stringify({ calibration: { n: "five" } }));
    const badConfig = kgate(["--root", paths.root, "calibrate"]);
    expect(badConfig.code).toBe(2);
    expect(badConfig.stderr).toBe("kgate: kgate.config.json: calibration.n: expected number, got string\n");
  });

  it("runs every cell in real sandboxes, verifies, decides, and writes Table 1 and the reports", () => {
    sandboxImage();
    const paths = project(3);
    const result = kgate(["--root", paths.root, "calibrate", "demo", "--run-id", "full"], {
      timeoutMs: HANG_MS,
    });
    const runDir = path.join(paths.runs, "full");
    expect(perCell(runDir)).toEqual({ "oracle +A": [0, 1, 2], "noop -A": [0, 1, 2] });
    expect(result.stdout).toMatch(/^\| task \| gate \| oracle\+A \| noop-A \| decision \| reasons \|$/m);
    expect(result.stdout).toMatch(
      /^\| demo \| convention \| 3\/3 \(100%\) \[44, 100\] \| 0\/3 \(0%\) \[0, 56\] \| retain \(plumbing check, not evidence\) \|/m,
    );
    // oracle and noop decide every cell: the line says the run checks the plumbing (issue 47 item 2)
    expect(result.stderr).toMatch(
      /^plumbing check \(oracle, noop, not a model\) · trials 6\/6 · pass 3 · fail 3 · infra 0 · running 0/m,
    );
    expect(result.stderr).toContain(
      "reports: runs/full/summary.json, runs/full/report.md, runs/full/report.svg, runs/full/report.html, runs/full/table1.csv, runs/full/table1.tex",
    );
    expect(result.code).toBe(0);
    const summary = JSON.parse(readFileSync(path.join(runDir, "summary.json"), "utf8"));
    expect(summary.tasks[0].decision).toBe("retain");
    for (const f of ["plan.json", "report.html"]) expect(existsSync(path.join(runDir, f))).toBe(true);
  });

  it("curtails in real sandboxes: once the decision is fixed, the task's other trials never run", () => {
    sandboxImage();
    const paths = project(5);
    // The oracle passes with the artefact: under "<= 0.4" its 4th pass makes at least 4/5, a miss by
    // more than one trial (3/5 would be the borderline one), so the task is discarded whatever the
    // 5th trial shows. The order (curtail-order.ts) starts with oracle+A, whose trials can settle the
    // task (a -A trial, with a prior of 0.1 that it passes, would settle it only by a pass): its four
    // passes decide, so 4 of 10 run and no -A trial.
    writeJson(paths.config, {
      calibration: {
        n: 5,
        concurrency: 2,
        cells: [
          { name: "oracle+A", agent: "oracle", condition: "+A", require: "<= 0.4" },
          { name: "noop-A", agent: "noop", condition: "-A", require: "= 0" },
        ],
      },
    });
    const result = kgate(["--root", paths.root, "calibrate", "demo", "--run-id", "cut"], {
      timeoutMs: HANG_MS,
    });
    expect(result.code).toBe(1);
    const cells = perCell(path.join(paths.runs, "cut"));
    expect(cells["oracle +A"]).toEqual([0, 1, 2, 3]);
    expect(cells["noop -A"]).toBeUndefined();
    expect(result.stderr).toContain("curtailed: demo: its remaining trials were skipped");
    const summary = JSON.parse(readFileSync(path.join(paths.runs, "cut", "summary.json"), "utf8"));
    expect(summary.tasks[0].decision).toBe("discard");
    // The rule decides on its own here (issue 30 item 9): the one trial not run cannot lift 4/5.
    expect(summary.tasks[0].reasons[0]).toMatch(
      /^oracle\+A passed 4\/4 .*1 valid trial\(s\) short of n = 5: misses .* whatever the missing trial\(s\) show/,
    );
    expect(summary.totals.trials).toBe(4);
  });

  it("resumes after SIGKILL with exactly n records per cell and no container left", async () => {
    sandboxImage();
    const paths = project(3, SLOW_ORACLE);
    const runDir = path.join(paths.runs, "killed");
    const child = spawn(
      process.execPath,
      [KGATE_BIN, "--root", paths.root, "calibrate", "--run-id", "killed"],
      {
        env: { ...process.env, NO_COLOR: "1", CI: "true" },
        stdio: "ignore",
      },
    );
    const exited = new Promise((resolve) => child.on("exit", resolve));
    const deadline = Date.now() + HANG_MS;
    while (readTrialRecords(runDir).records.length < 1 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
    }
    // Wait for the next pair of trials to be in flight, then kill without any chance to clean up.
    while ((await runContainers("killed")) === 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    child.kill("SIGKILL");
    await exited;
    const before = readTrialRecords(runDir).records.length;
    expect(before).toBeGreaterThanOrEqual(1);
    expect(before).toBeLessThan(6);

    // SIGKILL leaves the in-flight containers behind; the next kgate command that uses Docker removes
    // them: the resume below (or a command of a test file running in parallel, whichever comes first).
    const resumed = kgate(["--root", paths.root, "calibrate", "--resume", "killed"], {
      env: { CI: "true" },
      timeoutMs: HANG_MS,
    });
    expect(perCell(runDir)).toEqual({ "oracle +A": [0, 1, 2], "noop -A": [0, 1, 2] });
    expect(readTrialRecords(runDir).problems).toEqual([]);
    expect(await runContainers("killed"), resumed.stderr).toBe(0);
    expect(resumed.code).toBe(0);
  });

  it("stops on SIGINT: running trials recorded as cancelled, containers removed, reports written, exit 130", async () => {
    sandboxImage();
    const paths = project(3, SLOW_ORACLE);
    const runDir = path.join(paths.runs, "stopped");
    const child = spawn(
      process.execPath,
      [KGATE_BIN, "--root", paths.root, "calibrate", "--run-id", "stopped"],
      {
        env: { ...process.env, NO_COLOR: "1", CI: "true" },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stderr = "";
    child.stderr.on("data", (c: Buffer) => {
      stderr += c.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
    const deadline = Date.now() + HANG_MS;
    while ((await runContainers("stopped")) === 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    child.kill("SIGINT");
    expect(await exited).toBe(130);
    expect(stderr).toContain("SIGINT: stopping run stopped and removing its containers");
    expect(stderr).toContain("interrupted: resume with  kgate calibrate --resume stopped");
    const records = readTrialRecords(runDir).records;
    expect(records.some((r) => r.error?.kind === "cancelled")).toBe(true);
    expect(existsSync(path.join(runDir, "report.html"))).toBe(true);
    expect(await runContainers("stopped")).toBe(0);
    const summary = JSON.parse(readFileSync(path.join(runDir, "summary.json"), "utf8"));
    expect(summary.tasks[0].decision).toBe("incomplete");
  });

  it("refuses to resume when the artefact changed", () => {
    sandboxImage();
    const paths = project(1);
    expect([0, 1]).toContain(
      kgate(["--root", paths.root, "calibrate", "--run-id", "r"], { timeoutMs: HANG_MS }).code,
    );
    writeFileSync(path.join(paths.artefacts, "demo", "artefact.md"), "# Other conventions\n".repeat(30));
    const refused = kgate(["--root", paths.root, "calibrate", "--resume", "r"], { timeoutMs: HANG_MS });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /^kgate: cannot resume runs\/r: the project changed since the plan was written\n {2}artefact of task "demo" changed \(plan [0-9a-f]{12}…, now [0-9a-f]{12}…\)\nresults made with different inputs must not be mixed/,
    );
    // the refused resume ran nothing: the first run's one trial per cell
    expect(perCell(path.join(paths.runs, "r"))).toEqual({ "oracle +A": [0], "noop -A": [0] });
  });
});
