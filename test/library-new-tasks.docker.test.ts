// The library tasks added after the first five, end to end in real Docker, as leanly as the
// assertions allow: ONE calibration over all of them (the oracle as the frontier agent, noop as the
// mid agent, n = 1) retains each; the rubric task's verdicts show every criterion with its weight in
// `kgate show`, the report and the viewer; `kgate export harbor` runs each task as Harbor runs it,
// reward 1 for the oracle under +A and 0 under -A. Per-task unit tests: test/tasks-<id>.test.ts.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { projectPaths } from "../src/project.ts";
import type { TrialRecord } from "../src/record/index.ts";
import { RunSummary } from "../src/report/index.ts";
import { kgate } from "./support/cli.ts";
import { buildEnvironment, exec, runOracle, runVerifier, startEnvironment } from "./support/harbor-run.ts";
import { copyLibraryTask } from "./support/library-task.ts";
import { tempProject } from "./support/project.ts";
import { sandboxImage } from "./support/sandbox.ts";

/** The tasks this file covers (the first five are covered by export-harbor.docker.test.ts and the others). */
const NEW_TASKS = ["airline-booking", "legal-clause", "clinical-variant", "dependency-audit"];
/** The library's rubric-verified task, and its criteria with their weights (verifiers/legal-clause.ts). */
const RUBRIC_TASK = "legal-clause";
const RUBRIC_OUTPUT = "output/clause_risk.json";
const CRITERIA: Array<[string, number]> = [
  ["keyword scores", 3],
  ["caps applied", 2],
  ["clause scores", 3],
  ["jurisdiction multipliers", 2],
  ["contract totals", 2],
  ["risk bands", 1],
];

const repo = projectPaths(path.resolve(import.meta.dirname, ".."));
const cells = ["frontier+A", "frontier-A", "mid+A", "control"];

describe("one calibration of the new tasks: oracle as frontier, noop as mid (real sandboxes)", () => {
  const paths = tempProject("file");
  for (const id of NEW_TASKS) copyLibraryTask(paths, id);
  const runDir = path.join(paths.runs, "lib");
  let summary: RunSummary;
  let records: TrialRecord[];
  const recordOf = (task: string, condition: string) =>
    records.find((r) => r.task.id === task && r.condition === condition)!;

  it("retains every task: the oracle passes +A only, noop never passes, the control fails as perturbed", () => {
    sandboxImage();
    const args = ["calibrate", ...NEW_TASKS, "--frontier", "oracle", "--mid", "noop", "-n", "1"];
    const result = kgate(["--root", paths.root, ...args, "--run-id", "lib"], { timeoutMs: 540_000 });
    expect(result.code, result.stderr).toBe(0);
    summary = RunSummary.parse(JSON.parse(readFileSync(path.join(runDir, "summary.json"), "utf8")));
    records = readFileSync(path.join(runDir, "trials.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as TrialRecord);
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
  }, 600_000);

  it("the rubric verdict carries every criterion with its weight; the control passes only the multipliers", () => {
    const pass = recordOf(RUBRIC_TASK, "+A").verdict;
    expect(pass.criteria.map((c) => [c.name, c.weight, c.passed])).toEqual(
      CRITERIA.map(([name, weight]) => [`${RUBRIC_OUTPUT}: ${name}`, weight, true]),
    );
    // The perturbed variant keeps the artefact's multipliers: only that criterion (weight 2) passes,
    // so the score is 2 / (3 + 2 + 3 + 2 + 2 + 1) = 2/13 and the reward (the product) 0.
    const control = recordOf(RUBRIC_TASK, "variant:perturbed").verdict;
    expect(control.criteria.filter((c) => c.passed).map((c) => c.name)).toEqual([
      `${RUBRIC_OUTPUT}: jurisdiction multipliers`,
    ]);
    expect(control.reward).toBe(0);
    expect(control.score).toBeCloseTo(2 / 13, 12);
  });

  it("kgate show lists every rubric criterion, passed or not, with its weight", () => {
    const show = (condition: string) =>
      kgate(["--root", paths.root, "show", `lib/${recordOf(RUBRIC_TASK, condition).trialId}`]).stdout;
    const shown = { "+A": show("+A"), "variant:perturbed": show("variant:perturbed") };
    for (const [condition, stdout] of Object.entries(shown)) {
      const passes = (name: string) => condition === "+A" || name === "jurisdiction multipliers";
      const listed = stdout.split("\n").filter((l) => /^ {2}[✓✗] output\//.test(l));
      expect(
        listed.map((l) => l.slice(2, 3)),
        condition,
      ).toEqual(CRITERIA.map(([n]) => (passes(n) ? "✓" : "✗")));
      CRITERIA.forEach(([name, weight], i) => {
        expect(listed[i]).toContain(`${RUBRIC_OUTPUT}: ${name} [weight ${weight}]`);
      });
      const passed = CRITERIA.filter(([n]) => passes(n)).length;
      expect(stdout).toContain(`  criteria  ${passed} of 6 passed`);
    }
    expect(shown["variant:perturbed"]).toMatch(
      /^verdict +FAIL +reward 0\.00 +score 0\.15 +attribution perturbed-convention:perturbed$/m,
    );
  }, 240_000);

  it("the report has a rubric table: each criterion's passes per cell, the reward and the mean score", () => {
    const report = readFileSync(path.join(runDir, "report.md"), "utf8");
    const section = report.slice(report.indexOf("## Rubric criteria"));
    expect(section.length).toBeLessThan(report.length);
    const rows = section.split("\n").filter((l) => l.startsWith("| "));
    expect(rows[0]).toBe(`| ${RUBRIC_TASK}: criterion | weight | ${cells.join(" | ")} |`);
    // Each cell has one verified trial: +A passes everything, -A (nothing written) and mid (noop)
    // nothing; the control only the multipliers. Mean scores: 1, 0, 0 and 2/13 = 0.15.
    expect(rows.slice(1)).toEqual([
      ...CRITERIA.map(
        ([name, weight]) =>
          `| ${RUBRIC_OUTPUT}: ${name} | ${weight} | 1/1 | 0/1 | 0/1 | ${name === "jurisdiction multipliers" ? "1/1" : "0/1"} |`,
      ),
      "| reward 1 (every criterion: the product) |  | 1/1 | 0/1 | 0/1 | 0/1 |",
      "| mean score (by weight) |  | 1.00 | 0.00 | 0.00 | 0.15 |",
    ]);
    // Only rubric-scored tasks get a table.
    for (const id of NEW_TASKS.filter((t) => t !== RUBRIC_TASK))
      expect(section).not.toContain(`| ${id}: criterion`);
    const html = readFileSync(path.join(runDir, "report.html"), "utf8");
    expect(html).toContain(`<table class="rubric" data-task="${RUBRIC_TASK}">`);
    expect(html).toContain('<td>mean score (by weight)</td><td class="num"></td><td class="num">1.00</td>');
  });

  it("the viewer's trial detail carries every criterion with its weight", () => {
    const out = path.join(paths.root, "view");
    expect(kgate(["--root", paths.root, "view", "lib", "--out", out]).code).toBe(0);
    const script = (file: string) =>
      JSON.parse(readFileSync(path.join(out, "data", file), "utf8").replace(/^kgateView\.\w+\(|\);\n$/g, ""));
    const trial = recordOf(RUBRIC_TASK, "variant:perturbed").trialId;
    const key = (script("runs.js").trials as Array<{ key: string; trialId: string }>).find(
      (t) => t.trialId === trial,
    )!.key;
    const detail = script(`trial/${key}.js`);
    expect(
      detail.verdict.criteria.map((c: { name: string; weight: number; passed: boolean }) => [
        c.name,
        c.weight,
        c.passed,
      ]),
    ).toEqual(
      CRITERIA.map(([name, weight]) => [
        `${RUBRIC_OUTPUT}: ${name}`,
        weight,
        name === "jurisdiction multipliers",
      ]),
    );
  }, 240_000);
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
        if (id === RUBRIC_TASK && condition === "+A") {
          const record = JSON.parse(exec(container, "cat /logs/verifier/verdict.json").stdout);
          expect(record.verdict.criteria.map((c: { weight: number }) => c.weight)).toEqual(
            CRITERIA.map(([, w]) => w),
          );
        }
      }
    },
    300_000,
  );
});
