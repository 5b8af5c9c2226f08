// The library tasks added after the first five, end to end in real Docker, as leanly as the
// assertions allow: ONE calibration over all of them (the oracle as the frontier agent, noop as the
// mid agent, n = 1) retains each; `kgate export harbor` runs each task as Harbor runs it, reward 1
// for the oracle under +A and 0 under -A. Per-task unit tests: test/tasks-<id>.test.ts.
// (The same structure as on branch lib-a, which adds the rubric task's checks; merged, NEW_TASKS
// lists the tasks of both.)
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { projectPaths } from "../src/project.ts";
import { RunSummary } from "../src/report/index.ts";
import { kgate } from "./support/cli.ts";
import { buildEnvironment, runOracle, runVerifier, startEnvironment } from "./support/harbor-run.ts";
import { copyLibraryTask } from "./support/library-task.ts";
import { tempProject } from "./support/project.ts";
import { sandboxImage } from "./support/sandbox.ts";

/** The tasks this file covers (the first five are covered by export-harbor.test.ts and the others). */
const NEW_TASKS = ["clinical-variant", "dependency-audit"];
const repo = projectPaths(path.resolve(import.meta.dirname, ".."));
const cells = ["frontier+A", "frontier-A", "mid+A", "control"];

describe("one calibration of the new tasks: oracle as frontier, noop as mid (real sandboxes)", () => {
  const paths = tempProject("file");
  for (const id of NEW_TASKS) copyLibraryTask(paths, id);
  const runDir = path.join(paths.runs, "lib");
  let summary: RunSummary;

  it("retains every task: the oracle passes +A only, noop never passes, the control fails as perturbed", () => {
    sandboxImage();
    const args = ["calibrate", ...NEW_TASKS, "--frontier", "oracle", "--mid", "noop", "-n", "1"];
    const result = kgate(["--root", paths.root, ...args, "--run-id", "lib"], { timeoutMs: 540_000 });
    expect(result.code, result.stderr).toBe(0);
    summary = RunSummary.parse(JSON.parse(readFileSync(path.join(runDir, "summary.json"), "utf8")));
    // n = 1: the clauses are met by one trial, so "retain" is flagged borderline (not --strict).
    expect(summary.tasks.map((t) => [t.id, t.decision])).toEqual(NEW_TASKS.map((id) => [id, "retain"]));
    for (const id of NEW_TASKS) {
      const tally = cells.map((label) => {
        const c = summary.cells.find((x) => x.task === id && x.label === label)!;
        return [label, c.counts.pass, c.counts.runs];
      });
      expect(tally, id).toEqual([
        ["frontier+A", 1, 1],
        ["frontier-A", 0, 1],
        ["mid+A", 0, 1],
        ["control", 0, 1],
      ]);
      const control = summary.cells.find((x) => x.task === id && x.label === "control")!;
      expect(control.attribution.perturbed, id).toEqual({ perturbed: 1 });
    }
  });
});

describe("kgate export harbor of the new tasks, run as Harbor runs them (real Docker)", () => {
  const out = tempProject("file").root;
  const exported = kgate(["--root", repo.root, "export", "harbor", ...NEW_TASKS, "--out", out, "--json"], {
    timeoutMs: 300_000,
  });

  it.each(NEW_TASKS)(
    "%s: reward 1 for the oracle under +A, 0 under -A",
    (id) => {
      expect(exported.code, exported.stderr).toBe(0);
      const base = sandboxImage();
      for (const [suffix, condition, reward] of [
        ["plus-a", "+A", "1"],
        ["minus-a", "-A", "0"],
      ] as const) {
        const folder = path.join(out, `${id}-${suffix}`);
        const container = startEnvironment(buildEnvironment(folder, base));
        // Under -A the oracle stops: the specification is not present.
        expect(runOracle(container, folder).code === 0, condition).toBe(condition === "+A");
        const verdict = runVerifier(container, folder);
        expect(verdict.stdout).toContain(
          `kgate verdict for ${id} (${condition}): ${reward === "1" ? "pass" : "fail"}`,
        );
        expect(verdict.reward).toBe(reward);
      }
    },
    300_000,
  );
});
