// The variant checks of `kgate check`: the oracle in the real sandbox under a variant (the library's
// own oracles under every variant are asserted in check-cli's whole-library run), the dead-rule
// check (conventionWeights) and the output contract of every convention set.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { conventionWeights } from "../src/check/index.ts";
import { projectPaths } from "../src/project.ts";
import { listTaskIds, loadValidTask } from "../src/task/index.ts";
import { loadVerifier } from "../src/verify/index.ts";
import { kgate } from "./support/cli.ts";
import { tempProject } from "./support/project.ts";
import { sandboxImage } from "./support/sandbox.ts";
import { fillTodos } from "./support/todos.ts";
import { markupProject, markupVerifierSource } from "./support/verify-fixture.ts";

const ROOT = path.resolve(import.meta.dirname, "..");

interface CheckJson {
  tasks: Array<{ id: string; ok: boolean; checks: Array<{ id: string; status: string; detail: string }> }>;
}

function checkOf(stdout: string, id: string) {
  return (JSON.parse(stdout) as CheckJson).tasks[0]!.checks.find((c) => c.id === id);
}

describe("conventionWeights (the dead-rule check)", () => {
  it("finds at least one load-bearing convention in every library task", async () => {
    const paths = projectPaths(ROOT);
    const ids = listTaskIds(paths);
    expect(ids.length).toBeGreaterThanOrEqual(5);
    for (const id of ids) {
      const task = loadValidTask(paths, id);
      const weights = conventionWeights(task, await loadVerifier(task));
      expect(weights.filter((w) => w.loadBearing).length, id).toBeGreaterThan(0);
      // A convention that gates (its value differs from the default) must bear load on the data.
      for (const w of weights) if (!w.sameAsDefault) expect(w.loadBearing, `${id} ${w.name}`).toBe(true);
    }
  });

  it("counts the values a convention changes: the markup rate changes 8", async () => {
    const project = markupProject();
    const task = project.load();
    // rate 0.12 -> 0: result.csv's 3 values (2.8, 6.72, 26.88 -> 2.5, 6, 24), summary.json's total
    // and its 3 line values, memo.md's total; item names stay: 3 + 4 + 1 = 8. The memo (a text
    // judged by its rubric) states 32.50, not 36.40: its "states the total" fails it.
    expect(conventionWeights(task, await loadVerifier(task))).toEqual([
      {
        name: "rate",
        read: true,
        loadBearing: true,
        changedValues: 8,
        sameAsDefault: false,
        rubricFails: true,
      },
    ]);
  });

  it("fails `kgate check`, naming a convention the verifier never reads as the verifier's fault", () => {
    const project = markupProject({
      verifier: (imp) =>
        markupVerifierSource(imp)
          .replace("interface C { rate: number }", "interface C { rate: number; unused: number }")
          .replace("artefact: { rate: 0.12 }", "artefact: { rate: 0.12, unused: 1 }")
          .replace("default: { rate: 0 }", "default: { rate: 0, unused: 2 }"),
    });
    const result = kgate(["--root", project.paths.root, "check", "--no-sandbox", "--json"]);
    expect(result.code).toBe(1);
    expect(checkOf(result.stdout, "dead-rules")).toMatchObject({
      status: "fail",
      detail: expect.stringMatching(
        /^the verifier never reads "unused": verifiers\/markup\.ts solve\(\) does not look at that convention, so no data can make it count/,
      ),
    });
  });

  it("blames the data for a convention the verifier reads but the data never exercises", () => {
    const project = markupProject({
      verifier: (imp) =>
        markupVerifierSource(imp)
          .replace("interface C { rate: number }", "interface C { rate: number; cap: number }")
          .replace("artefact: { rate: 0.12 }", "artefact: { rate: 0.12, cap: 1000 }")
          .replace("default: { rate: 0 }", "default: { rate: 0, cap: 2000 }")
          .replace(
            "perturbed: { rate: 0.15 }, compressed: { rate: 0.12 }",
            "perturbed: { rate: 0.15, cap: 1000 }, compressed: { rate: 0.12, cap: 1000 }",
          )
          // Read, but no line of input.csv comes near either cap (the largest is 26.88).
          .replace(
            "const total =",
            "for (const r of rows) r.value = Math.min(r.value, c.cap);\n    const total =",
          ),
    });
    const result = kgate(["--root", project.paths.root, "check", "--no-sandbox", "--json"]);
    expect(result.code).toBe(1);
    expect(checkOf(result.stdout, "dead-rules")).toMatchObject({
      status: "fail",
      detail: expect.stringMatching(
        /^dead weight: "cap" set to the default change\(s\) no value .*make the data exercise it/,
      ),
    });
  });

  it("reports a convention stated at its default value as not gated, without failing", () => {
    const project = markupProject({
      verifier: (imp) =>
        markupVerifierSource(imp)
          .replace("interface C { rate: number }", "interface C { rate: number; unit: string }")
          .replace("artefact: { rate: 0.12 }", 'artefact: { rate: 0.12, unit: "EUR" }')
          .replace("default: { rate: 0 }", 'default: { rate: 0, unit: "EUR" }'),
    });
    const result = kgate(["--root", project.paths.root, "check", "--no-sandbox", "--json"]);
    // A warning, not a failure: the memo's "names every item" passes every wrong deliverable.
    expect(checkOf(result.stdout, "dead-rules")).toEqual({
      id: "dead-rules",
      status: "warning",
      detail:
        'each gated convention changes the answer when set to its default (values changed: rate 8); stated as the default, not gated: unit; the rubric fails each deliverable written under a wrong convention (4); idle criteria, passed by every wrong deliverable: "output/memo.md: names every item" (they check nothing a convention changes)',
      durationMs: expect.any(Number),
    });
  });
});

/** The markup task judged only by a rubric on output/summary.json (judgesAlone) with `criteria`. */
function judgedProject(criteria: string) {
  return markupProject({
    spec: (spec) => {
      spec.outputs = (spec.outputs as Array<{ path: string }>).filter(
        (o) => o.path === "output/summary.json",
      );
    },
    verifier: (imp) =>
      markupVerifierSource(imp)
        .replace(/"output\/result\.csv": rows,\n/, "")
        .replace(/\n\s*"output\/memo\.md": \{ total, items[^\n]*/, "")
        .replace(
          /rubric: \{[\s\S]*\n {2}\},\n/,
          `rubric: { "output/summary.json": { judgesAlone: true, criteria: [${criteria}] } },\n`,
        ),
  });
}

describe("dead rules under a rubric that judges an output alone", () => {
  const total =
    '{ name: "total", check: (a: { total: number }, e: { total: number }) => Math.abs(a.total - e.total) <= 1e-4 }';
  const count =
    '{ name: "one line per item", check: (a: { lines: unknown[] }, e: { lines: unknown[] }) => a.lines.length === e.lines.length }';

  it("records that the rubric fails the answer with a convention at its default", async () => {
    const task = judgedProject(total).load();
    // rate 0.12 -> 0 changes summary.json's total and its 3 line values: 4; the total criterion sees it.
    expect(conventionWeights(task, await loadVerifier(task))).toEqual([
      {
        name: "rate",
        read: true,
        loadBearing: true,
        changedValues: 4,
        sameAsDefault: false,
        rubricFails: true,
      },
    ]);
  });

  it("fails `kgate check` when the criteria let that changed answer pass", () => {
    const project = judgedProject(count);
    const result = kgate(["--root", project.paths.root, "check", "--no-sandbox", "--json"]);
    expect(result.code).toBe(1);
    expect(checkOf(result.stdout, "dead-rules")).toMatchObject({
      status: "fail",
      detail: expect.stringMatching(
        /^the rubric passes the answer with "rate" set to the default: its criteria miss/,
      ),
    });
  });
});

describe("the output contract of every convention set", () => {
  it("fails, naming the set, when the default answer breaks the contract", () => {
    const project = markupProject({
      verifier: (imp) =>
        markupVerifierSource(imp).replace(
          '"output/result.csv": rows,',
          '"output/result.csv": c.rate === 0 ? rows.map((r) => ({ ...r, value: "n/a" })) : rows,',
        ),
    });
    const result = kgate(["--root", project.paths.root, "check", "--no-sandbox", "--json"]);
    expect(result.code).toBe(1);
    const contract = checkOf(result.stdout, "contract")!;
    expect(contract.status).toBe("fail");
    expect(contract.detail).toMatch(
      /the default answer for "output\/result\.csv" breaks the output contract/,
    );
    expect(contract.detail).not.toMatch(/the artefact answer/);
  });
});

describe("the oracle under every variant, in the real sandbox", () => {
  it("fails a perturbed variant whose oracle ignores the placed specification, naming the record", () => {
    sandboxImage();
    const paths = tempProject();
    kgate(["--root", paths.root, "new", "demo"]);
    fillTodos(paths, "demo");
    // An oracle with the artefact's rate written into it: the perturbed variant changes nothing.
    writeFileSync(
      path.join(paths.tasks, "demo", "solution", "solve.sh"),
      "mkdir -p output\nprintf 'item,value\\nwidget,3.36\\ngadget,5.60\\n' > output/result.csv\n",
    );
    const result = kgate(["--root", paths.root, "check", "demo", "--json"], { timeoutMs: 240_000 });
    expect(result.code).toBe(1);
    expect(checkOf(result.stdout, "oracle")!.status).toBe("pass");
    const variant = checkOf(result.stdout, "oracle:variant:perturbed")!;
    expect(variant.status).toBe("fail");
    expect(variant.detail).toMatch(
      // demo's perturbed variant changes the rate alone; the oracle wrote the artefact's rate into its answer.
      /^perturbed: the oracle passes, must fail as perturbed-convention:perturbed; the oracle's answer is the verifier's with "rate" at the artefact's value: the variant's text still states it, or the oracle does not read the placed artefact \(runs\/check-[\w-]+\/trials\.jsonl demo\.[\w-]+\.oracle\.0\)$/,
    );
  }, 300_000);

  it("gives the oracle the placed artefact's path as KGATE_ARTEFACT_PATH", () => {
    sandboxImage();
    const paths = tempProject();
    kgate(["--root", paths.root, "new", "demo"]);
    fillTodos(paths, "demo");
    const solution = path.join(paths.tasks, "demo", "solution", "solve.sh");
    const strict = `test "$KGATE_ARTEFACT_PATH" = docs/internal/specification.md || { echo "KGATE_ARTEFACT_PATH=$KGATE_ARTEFACT_PATH" >&2; exit 7; }\n`;
    writeFileSync(solution, strict + readFileSync(solution, "utf8"));
    const result = kgate(["--root", paths.root, "check", "demo", "--json"], { timeoutMs: 240_000 });
    expect(checkOf(result.stdout, "oracle")).toMatchObject({ status: "pass" });
    expect(checkOf(result.stdout, "oracle:variant:compressed")).toMatchObject({ status: "pass" });
    expect(result.code).toBe(0);
  }, 300_000);
});
