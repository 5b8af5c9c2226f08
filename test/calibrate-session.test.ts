// A calibration session with an in-process backend: plan and reports in the run directory,
// decisions on the retain / revise / discard paths, resume that runs only what is missing,
// refuses drifted digests with a clear message, and a lock against a second process.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  type Backend,
  CalibrationConfig,
  type CalibrationConfigInput,
  CalibrationError,
  type CellJob,
  calibrate,
} from "../src/calibrate/index.ts";
import type { ProjectPaths } from "../src/project.ts";
import { readTrialRecords } from "../src/trial/index.ts";
import {
  agentInfo,
  type FakeRunnerOptions,
  fakeRunner,
  scaffoldTasks,
} from "./support/calibrate-fixtures.ts";
import { tempProject } from "./support/project.ts";
import { TextSink } from "./support/text-sink.ts";

/** Agents frontier (anthropic) and mid (openai); trials by the fake runner, per task if a function is given. */
function backend(
  runner: FakeRunnerOptions | ((task: string) => FakeRunnerOptions),
  digests: Record<string, string> = {},
): Backend & { stops: number } {
  const perTask = typeof runner === "function" ? runner : () => runner;
  const b = {
    stops: 0,
    agents: async (names: readonly string[]) =>
      new Map(
        names
          .filter((n) => ["frontier", "mid"].includes(n))
          .map((n) => [
            n,
            agentInfo(n, n === "frontier" ? "anthropic" : "openai", digests[n] ?? `digest-of-${n}`),
          ]),
      ),
    start: async () => ({
      runner: (job: CellJob, signal: AbortSignal) => fakeRunner(perTask(job.task.id))(job, signal),
      stop: async () => {
        b.stops += 1;
      },
    }),
  };
  return b;
}

function session(
  paths: ProjectPaths,
  config: CalibrationConfigInput = {},
  extra: Partial<Parameters<typeof calibrate>[0]> = {},
) {
  const stderr = new TextSink();
  return {
    stderr,
    options: {
      paths,
      config: CalibrationConfig.parse({ curtail: false, ...config }),
      taskIds: [],
      stderr,
      live: false,
      ...extra,
    },
  };
}

describe("calibration session", () => {
  it("writes the plan, the records and the reports, and decides each path", async () => {
    const paths = tempProject();
    scaffoldTasks(paths, ["keep", "shaky", "leaky"]);
    const { options, stderr } = session(paths, {}, { runId: "r1" });
    const pass = { "frontier+A": 1, "frontier-A": 0, "mid+A": 0, control: 0 };
    const b = backend((task) => ({
      pass:
        task === "keep" ? pass : task === "shaky" ? { ...pass, control: 1 } : { ...pass, "frontier-A": 1 },
    }));
    const result = await calibrate(options, b);
    expect(b.stops).toBe(1);
    expect(result.run.shown).toBe("runs/r1");
    for (const f of ["plan.json", "trials.jsonl", "summary.json", "report.md", "report.svg", "report.html"]) {
      expect(existsSync(path.join(paths.runs, "r1", f))).toBe(true);
    }
    expect(existsSync(path.join(paths.runs, "r1", "calibrate.lock"))).toBe(false);
    expect(result.summary.tasks.map((t) => [t.id, t.decision])).toEqual([
      ["keep", "retain"],
      ["leaky", "discard"],
      ["shaky", "revise"],
    ]);
    expect(result.summary.tasks[2]!.reasons).toEqual([
      "control passed 5/5 (100%): 5 passes show p(control) > 0, so it misses p(control) = 0: the perturbed artefact still passes, so success does not track its content",
    ]);
    expect(stderr.text).toMatch(
      /^trials 60\/60 · pass 25 · fail 35 · infra 0 · running 0 · spent 72\.0k tokens · \$0\.60$/m,
    );
  });

  it("resumes only the missing trials", async () => {
    const paths = tempProject();
    scaffoldTasks(paths, ["alpha"]);
    const controller = new AbortController();
    let started = 0;
    const first = session(paths, { concurrency: 1 }, { runId: "r2", signal: controller.signal });
    const stopped = await calibrate(
      first.options,
      backend({
        pass: { "frontier+A": 1 },
        delayMs: 2,
        onStart: () => {
          if (++started === 6) controller.abort();
        },
      }),
    );
    expect(stopped.engine.interrupted).toBe(true);
    expect(stopped.summary.tasks[0]!.decision).toBe("incomplete");
    const done = readTrialRecords(path.join(paths.runs, "r2")).records.length;
    expect(done).toBeGreaterThanOrEqual(5);
    expect(done).toBeLessThan(20);

    const again = session(paths, {}, { resume: "r2" });
    const resumed = await calibrate(again.options, backend({ pass: { "frontier+A": 1 } }));
    expect(resumed.engine.written).toHaveLength(20 - done);
    expect(resumed.summary.cells.map((c) => c.counts.runs)).toEqual([5, 5, 5, 5]);
    expect(resumed.summary.tasks[0]!.decision).toBe("retain");
  });

  it("records kgate's version and the sandbox in plan.json, and refuses a resume on another sandbox image", async () => {
    const paths = tempProject();
    scaffoldTasks(paths, ["alpha"]);
    const on = (image: string) => ({
      ...backend({ pass: {} }),
      sandbox: async () => ({ provider: "docker", host: "local", image, base: "kgate-base:bookworm" }),
    });
    const first = `sha256:${"a".repeat(64)}`;
    await calibrate(session(paths, { n: 1 }, { runId: "r5" }).options, on(first));
    const plan = JSON.parse(readFileSync(path.join(paths.runs, "r5", "plan.json"), "utf8"));
    const pkg = JSON.parse(readFileSync(path.resolve(import.meta.dirname, "..", "package.json"), "utf8"));
    expect(plan.provenance).toEqual({
      kgateVersion: pkg.version,
      sandbox: { provider: "docker", host: "local", image: first, base: "kgate-base:bookworm" },
    });
    await calibrate(session(paths, {}, { resume: "r5" }).options, on(first)); // same image: fine
    await expect(
      calibrate(session(paths, {}, { resume: "r5" }).options, on(`sha256:${"b".repeat(64)}`)),
    ).rejects.toThrow(
      /the project changed since the plan was written\n {2}sandbox image changed \(plan aaaaaaaaaaaa…, now bbbbbbbbbbbb…\)/,
    );
  });

  it("refuses to resume after the artefact or an agent configuration changed", async () => {
    const paths = tempProject();
    scaffoldTasks(paths, ["alpha"]);
    await calibrate(session(paths, { n: 1 }, { runId: "r3" }).options, backend({ pass: {} }));
    writeFileSync(path.join(paths.artefacts, "alpha", "artefact.md"), "# Different conventions\n".repeat(20));
    const attempt = calibrate(
      session(paths, {}, { resume: "r3" }).options,
      backend({ pass: {} }, { mid: "new" }),
    );
    await expect(attempt).rejects.toBeInstanceOf(CalibrationError);
    await expect(attempt).rejects.toThrow(
      new RegExp(
        [
          "^cannot resume runs/r3: the project changed since the plan was written",
          '  artefact of task "alpha" changed \\(plan [0-9a-f]{12}…, now [0-9a-f]{12}…\\)',
          '  agent configuration "mid" changed \\(plan digest-of-mi…, now new…\\)',
          "results made with different inputs must not be mixed: start a new run, or restore what changed$",
        ].join("\n"),
      ),
    );
  });

  it("refuses a run another live process holds, an unknown agent, and an invalid task", async () => {
    const paths = tempProject();
    scaffoldTasks(paths, ["alpha"]);
    await calibrate(session(paths, { n: 1 }, { runId: "r4" }).options, backend({ pass: {} }));
    // The lock names a live process of this host by host, pid and start time: the test runner's parent.
    const host = (await import("node:os")).hostname();
    const stat = readFileSync(`/proc/${process.ppid}/stat`, "utf8");
    const started = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
    const lock = path.join(paths.runs, "r4", "calibrate.lock");
    writeFileSync(lock, `${host}/${process.ppid}/${started}\n`);
    await expect(
      calibrate(session(paths, {}, { resume: "r4" }).options, backend({ pass: {} })),
    ).rejects.toThrow(
      `runs/r4 is being calibrated by process ${process.ppid} on ${host}; wait for it or stop it first`,
    );
    // The same pid with another start time is a dead owner whose pid was reused: its lock is taken over.
    writeFileSync(lock, `${host}/${process.ppid}/1\n`);
    await calibrate(session(paths, {}, { resume: "r4" }).options, backend({ pass: {} }));
    expect(existsSync(lock)).toBe(false);
    const unknown = session(paths, { cells: [{ name: "x", agent: "opus", condition: "+A" }] });
    await expect(calibrate(unknown.options, backend({ pass: {} }))).rejects.toThrow(
      /unknown agent configuration\(s\): opus/,
    );
    writeFileSync(path.join(paths.tasks, "alpha", "task.json"), "{}");
    const invalid = session(paths, {}, { taskIds: ["alpha"] });
    await expect(calibrate(invalid.options, backend({ pass: {} }))).rejects.toThrow(
      /^task "alpha" is invalid:\n {2}tasks\/alpha\/task\.json: id: required field missing/,
    );
    expect(readFileSync(path.join(paths.runs, "r4", "plan.json"), "utf8")).toContain('"runId": "r4"');
  });
});
