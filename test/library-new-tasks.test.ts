// The library tasks of issue 33, end to end in real Docker: one `kgate calibrate` over all of them
// (the oracle as the frontier agent, noop as the mid agent) retains every one, and each, exported to
// Harbor's layout, runs as Harbor runs it: reward 1 for the oracle under +A, 0 under -A.
// (test/export-harbor.test.ts does the same for the first five tasks of the library.)
import path from "node:path";
import { describe, expect, it } from "vitest";
import { projectPaths } from "../src/project.ts";
import { kgate } from "./support/cli.ts";
import { buildEnvironment, runOracle, runVerifier, startEnvironment } from "./support/harbor-run.ts";
import { copyLibraryTask } from "./support/library-task.ts";
import { tempProject } from "./support/project.ts";
import { sandboxImage } from "./support/sandbox.ts";

/** The tasks this test covers: the library tasks added by issue 33. */
const NEW_TASKS = ["clinical-variant", "dependency-audit"];
/** Trials per cell: enough for a decision (4 cells per task), few enough for CI on two cores. */
const N = 2;

const repo = projectPaths(path.resolve(import.meta.dirname, ".."));
// A project holding copies of the tasks, so that the calibration's runs/ never lands in the repository.
const project = tempProject("file");
for (const id of NEW_TASKS) copyLibraryTask(project, id);

interface Summary {
  tasks: Array<{ id: string; decision: string }>;
  cells: Array<{ task: string; label: string; counts: { pass: number; runs: number; infra: number } }>;
}

describe("kgate calibrate --frontier oracle --mid noop over the new library tasks", () => {
  it("retains every task: the oracle passes +A and fails -A and the control, noop fails +A", () => {
    sandboxImage(); // built (or found) by the global setup; the CLI finds it by its digest tag
    const args = [
      "calibrate",
      ...NEW_TASKS,
      "--frontier",
      "oracle",
      "--mid",
      "noop",
      "-n",
      String(N),
      "--json",
    ];
    const result = kgate(["--root", project.root, ...args], { timeoutMs: 900_000 });
    expect(result.code, result.stderr.slice(-2000)).toBe(0);
    const summary = JSON.parse(result.stdout) as Summary;
    expect(summary.tasks.map((t) => [t.id, t.decision])).toEqual(NEW_TASKS.map((id) => [id, "retain"]));
    const passes = Object.fromEntries(
      summary.cells.map((c) => [
        `${c.task} ${c.label}`,
        `${c.counts.pass}/${c.counts.runs}, infra ${c.counts.infra}`,
      ]),
    );
    for (const id of NEW_TASKS) {
      expect(passes).toMatchObject({
        [`${id} frontier+A`]: `${N}/${N}, infra 0`,
        [`${id} frontier-A`]: `0/${N}, infra 0`,
        [`${id} mid+A`]: `0/${N}, infra 0`,
        [`${id} control`]: `0/${N}, infra 0`,
      });
    }
  }, 900_000);
});

describe("the new library tasks exported to Harbor, run as Harbor runs them (real Docker)", () => {
  const out = tempProject("file").root;
  const exported = kgate(
    [
      "--root",
      repo.root,
      "export",
      "harbor",
      ...NEW_TASKS,
      "--condition",
      "+A",
      "--condition",
      "-A",
      "--out",
      out,
    ],
    { timeoutMs: 300_000 },
  );

  it("exports +A and -A of every task", () => {
    expect(exported.code, exported.stderr).toBe(0);
  });

  const runs = NEW_TASKS.flatMap((id) => [
    { id, condition: "+A", suffix: "plus-a", verdict: "pass", reward: "1" },
    { id, condition: "-A", suffix: "minus-a", verdict: "fail", reward: "0" },
  ]);
  it.each(runs)(
    "$id $condition: reward $reward for the oracle",
    ({ id, condition, suffix, verdict, reward }) => {
      const folder = path.join(out, `${id}-${suffix}`);
      const container = startEnvironment(buildEnvironment(folder, sandboxImage()));
      const oracle = runOracle(container, folder);
      // Under -A the oracle stops: the specification is not present.
      if (condition === "+A") expect(oracle.code).toBe(0);
      else expect(oracle.code).not.toBe(0);
      const verified = runVerifier(container, folder);
      expect(verified.stdout).toContain(`kgate verdict for ${id} (${condition}): ${verdict}`);
      expect(verified.reward).toBe(reward);
    },
    240_000,
  );
});
