// `kgate check` end to end through the real bin: the repository's tasks pass; a task whose gate does
// not bite, a broken task and an unknown id are reported with the right lines and exit codes.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { projectPaths } from "../src/project.ts";
import { listTaskIds } from "../src/task/index.ts";
import { kgate } from "./support/cli.ts";
import { tempProject } from "./support/project.ts";
import { sandboxImage } from "./support/sandbox.ts";
import { fillTodos } from "./support/todos.ts";
import { markupProject, markupVerifierSource } from "./support/verify-fixture.ts";

const ROOT = path.resolve(import.meta.dirname, "..");
/** The library task graded by judge criteria: without a judge's key its calibration is unavailable. */
const JUDGED = "supplier-memo";

interface CheckJson {
  tasks: Array<{ id: string; ok: boolean; checks: Array<{ id: string; status: string; detail: string }> }>;
  summary: { tasks: number; passed: number; failed: number; unavailable: number; skipped: number };
}

const statuses = (task: CheckJson["tasks"][number]) =>
  Object.fromEntries(task.checks.map((c) => [c.id, c.status]));

describe("kgate check", () => {
  it("passes every task of this repository, oracle and noop in the real sandbox (--json)", () => {
    sandboxImage(); // built (or found) by the global setup; the CLI finds it by its digest tag
    const ids = listTaskIds(projectPaths(ROOT));
    expect(ids).toEqual(expect.arrayContaining(["bom-costing", "paper-index"]));
    // no judge key: supplier-memo's judge calibration is unavailable (test/check-judge.docker.test.ts
    // runs it with a loopback judge); never the real provider from a test
    const result = kgate(["--root", ROOT, "check", "--json"], {
      timeoutMs: 540_000,
      env: { ANTHROPIC_API_KEY: undefined },
    });
    expect(result.stderr).toMatch(/checking bom-costing/);
    const report = JSON.parse(result.stdout) as CheckJson;
    expect(report.tasks.map((t) => [t.id, t.ok])).toEqual(ids.map((id) => [id, true]));
    for (const task of report.tasks) {
      expect(statuses(task)).toEqual({
        schema: "pass",
        digests: "pass",
        "instruction-files": "pass",
        leftovers: "pass",
        generator: "pass",
        verifier: "pass",
        markers: "pass",
        deterministic: "pass",
        contract: "pass",
        oracle: "pass",
        noop: "pass",
        "oracle:variant:perturbed": "pass",
        "oracle:variant:compressed": "pass",
        "oracle:conventions": "pass",
        default: "pass",
        "variant:perturbed": "pass",
        "variant:compressed": "pass",
        "dead-rules": "pass",
        "artefact-numbers": "pass",
        "leak-audit": "pass",
        ...(task.id === JUDGED ? { "judge-calibration": "unavailable" } : {}),
      });
    }
    // 20 checks per task: the 10 of before plus instruction-files, leftovers, generator, markers,
    // contract, dead-rules, artefact-numbers, two oracle:variant trials and oracle:conventions (no
    // library task has a derivable convention its perturbed variant leaves unchanged: no trial of its
    // own); the judged task's 21st line, judge-calibration, is unavailable.
    expect(report.summary).toEqual({
      tasks: ids.length,
      passed: 20 * ids.length,
      warnings: 0,
      failed: 0,
      unavailable: 1,
      skipped: 0,
    });
    expect(result.code).toBe(0);
    const oracle = report.tasks[0]!.checks.find((c) => c.id === "oracle")!;
    expect(oracle.detail).toMatch(/^passes in \d+\.\d s$/);
    // The oracle under every variant, in the real sandbox: the three fixed Python oracles pass the
    // compressed artefact and fail as the perturbed variant, attributed to its conventions.
    for (const id of ["contract-clause", "mortgage-escrow", "payroll-overtime"]) {
      const task = report.tasks.find((t) => t.id === id)!;
      const byId = Object.fromEntries(task.checks.map((c) => [c.id, c]));
      expect(byId["oracle:variant:compressed"], id).toMatchObject({
        status: "pass",
        detail: expect.stringMatching(/^compressed: the oracle passes in \d+\.\d s$/),
      });
      expect(byId["oracle:variant:perturbed"], id).toMatchObject({
        status: "pass",
        detail: expect.stringMatching(
          /^perturbed: the oracle fails, attributed to perturbed-convention:perturbed in \d+\.\d s$/,
        ),
      });
    }
  }, 600_000);

  it("prints one line per check and a summary", () => {
    const project = markupProject();
    const result = kgate(["--root", project.paths.root, "check", "--no-sandbox"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^markup\n/);
    expect(result.stdout).toMatch(
      /^ {2}✓ default +the default-convention answer fails .*attributed to default-convention \(agreement 1\.00\)$/m,
    );
    expect(result.stdout).toMatch(/^ {2}✓ variant:compressed +compressed: its answer passes$/m);
    expect(result.stdout).toMatch(/^ {2}- oracle +not run \(--no-sandbox\)$/m);
    // 20 checks: oracle, noop and the two oracle:variant trials are not run without the sandbox; the
    // audit's one warning (a bare 12 in input.csv, "gear,2,12") is named in its line and the summary,
    // and so is dead-rules' (the memo's "names every item" passes every wrong deliverable).
    expect(result.stdout).toMatch(
      /^ {2}! leak-audit +no leak \(0 error\(s\), 1 warning\(s\), 0 suppressed\): gated-number at tasks\/markup\/environment\/input\.csv:4:8;/m,
    );
    expect(result.stdout).toMatch(
      /^1 task\(s\): 14 passed, 2 warning\(s\) \(markup dead-rules, markup leak-audit\), 0 failed, 4 not available, 0 skipped$/m,
    );
  });

  it("warns, naming its line, about a convention the artefact states but nothing marks or gates", () => {
    const project = markupProject();
    const artefact = path.join(project.paths.artefacts, "markup", "artefact.md");
    const lines = readFileSync(artefact, "utf8").split("\n");
    const at = lines.findIndex((l) => l.startsWith("- Convention 3:"));
    // A fourth convention, outside any marked section, that the verifier's conventions (rate 0.12) do
    // not hold: 7% is none of 0.12, 12, 1.12 or 0.88.
    lines.splice(at + 1, 0, "- Convention 4: a handling fee of 7% on every line.");
    writeFileSync(artefact, lines.join("\n"));
    const line = at + 2;
    const result = kgate(["--root", project.paths.root, "check", "markup", "--no-sandbox"]);
    expect(result.code).toBe(0);
    // "- Convention 4: a handling fee of " is 34 characters: 7% starts in column 35.
    expect(result.stdout).toMatch(
      new RegExp(
        `^ {2}! artefact-numbers +1 number\\(s\\) of the artefact in no convention section and held by no convention of markup\\.ts: artefacts/markup/artefact\\.md:${line}:35; a convention nothing gates`,
        "m",
      ),
    );
    // The audit's coverage names the same place: no gated item declares 7%.
    expect(result.stdout).toContain(`coverage at artefacts/markup/artefact.md:${line}:35`);
    // dead-rules warns too: the memo's "names every item" passes every wrong deliverable.
    expect(result.stdout).toMatch(
      /3 warning\(s\) \(markup dead-rules, markup artefact-numbers, markup leak-audit\), 0 failed/,
    );
  });

  it("fails the leak-audit step, exit 1, when the instruction gives a gated constant away", () => {
    const project = markupProject();
    writeFileSync(
      path.join(project.paths.audits, "markup.json"),
      JSON.stringify({
        items: [{ id: "markup-rate", kind: "number", value: 0.12, context: ["markup", "rate"] }],
        allowlist: [],
      }),
    );
    const instruction = path.join(project.paths.tasks, "markup", "instruction.md");
    writeFileSync(
      instruction,
      `${readFileSync(instruction, "utf8")}\nApply a markup rate of twelve percent.\n`,
    );
    const result = kgate(["--root", project.paths.root, "check", "--no-sandbox", "--json"]);
    expect(result.code).toBe(1);
    const audit = (JSON.parse(result.stdout) as CheckJson).tasks[0]!.checks.find(
      (c) => c.id === "leak-audit",
    )!;
    expect(audit.status).toBe("fail");
    expect(audit.detail).toMatch(/^leaks found \([1-9]\d* error\(s\)/);
  });

  it("fails, exit 1, when the default conventions give the artefact's answer", () => {
    const project = markupProject({
      verifier: (imp) => markupVerifierSource(imp).replace("default: { rate: 0 }", "default: { rate: 0.12 }"),
    });
    const result = kgate(["--root", project.paths.root, "check", "markup", "--no-sandbox"]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /^ {2}✗ default +the default-convention answer passes: the default conventions give the artefact's answer, the gate does not bite$/m,
    );
  });

  it("fails a perturbed variant that is attributed to something else, and a compressed one that fails", () => {
    const project = markupProject({
      verifier: (imp) =>
        markupVerifierSource(imp)
          .replace("perturbed: { rate: 0.15 }", "perturbed: { rate: 0 }")
          .replace("compressed: { rate: 0.12 }", "compressed: { rate: 0.13 }"),
    });
    const report = JSON.parse(
      kgate(["--root", project.paths.root, "check", "--json", "--no-sandbox"]).stdout,
    ) as CheckJson;
    const checks = report.tasks[0]!.checks;
    expect(checks.find((c) => c.id === "variant:perturbed")).toMatchObject({ status: "fail" });
    expect(checks.find((c) => c.id === "variant:perturbed")!.detail).toMatch(
      /attributed to default-convention .*\(must fail as perturbed-convention:perturbed\)$/,
    );
    expect(checks.find((c) => c.id === "variant:compressed")!.detail).toMatch(/\(must pass\)$/);
    // The line names the first differing value, as kgate show does: bolt is 10 x 0.25 = 2.50 before
    // markup; the artefact's 12% gives 2.8, the compressed variant's 13% gives 2.825.
    expect(checks.find((c) => c.id === "variant:compressed")!.detail).toContain(
      "its answer fails (output/result.csv: 3 of 3 value(s) differ, in 3 row(s); first: item=bolt value: expected 2.8, got 2.825;",
    );
  });

  it("reports a task that does not load and skips what depends on it", () => {
    const project = markupProject();
    const file = path.join(project.paths.tasks, "markup", "task.json");
    const spec = JSON.parse(readFileSync(file, "utf8"));
    spec.outputs[0].key = ["sku"];
    writeFileSync(file, JSON.stringify(spec));
    const result = kgate(["--root", project.paths.root, "check", "--json", "--no-sandbox"]);
    expect(result.code).toBe(1);
    const task = (JSON.parse(result.stdout) as CheckJson).tasks[0]!;
    expect(task.checks[0]).toMatchObject({
      id: "schema",
      status: "fail",
      detail: 'tasks/markup/task.json: outputs[0].key[0]: "sku" is not a declared column',
    });
    expect(new Set(task.checks.slice(1).map((c) => c.status))).toEqual(new Set(["skipped"]));
  });

  it("reports a verifier that does not load, naming the file", () => {
    const project = markupProject({ verifier: () => "export default { solve() {} };\n" });
    const result = kgate(["--root", project.paths.root, "check", "--no-sandbox"]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /✗ verifier +verifiers\/markup\.ts: the default export is not a verifier: conventions/,
    );
    expect(result.stdout).toMatch(/· deterministic +the verifier does not load/);
  });

  it("passes a freshly scaffolded task, its oracle in the sandbox (a project without package.json)", () => {
    sandboxImage();
    const paths = tempProject();
    expect(kgate(["--root", paths.root, "new", "demo"]).code).toBe(0);
    const untouched = kgate(["--root", paths.root, "check", "demo", "--no-sandbox"]);
    expect(untouched.code).toBe(1);
    expect(untouched.stdout).toMatch(/✗ leftovers +\d+ TODO marker\(s\) left: tasks\/demo\/task\.json:\d+/);
    fillTodos(paths, "demo");
    const result = kgate(["--root", paths.root, "check", "demo"], { timeoutMs: 240_000 });
    expect(result.stdout).toMatch(/✓ verifier +verifiers\/demo\.ts loads/);
    expect(result.stdout).toMatch(/✓ oracle +passes in /);
    expect(result.stdout).toMatch(/✓ noop +fails, attributed to format in /);
    expect(result.stdout).toMatch(
      /✓ variant:perturbed +perturbed: its answer fails .*perturbed-convention:perturbed/,
    );
    expect(result.code).toBe(0);
  }, 300_000);

  it("fails the oracle check when the solution fails in the sandbox, naming the record", () => {
    sandboxImage();
    const paths = tempProject();
    kgate(["--root", paths.root, "new", "demo"]);
    writeFileSync(path.join(paths.tasks, "demo", "solution", "solve.sh"), "echo 'no luck' >&2\nexit 3\n");
    const result = kgate(["--root", paths.root, "check", "demo"], { timeoutMs: 240_000 });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /✗ oracle +verdict fail: output\/result\.csv was not produced \([^)]*\) \(solution-failed: the solution exited with 3: no luck\) \(runs\/check-[\w-]+\/trials\.jsonl demo\.with-A\.oracle\.0\)/,
    );
  }, 300_000);

  it("exits 2 on an unknown task id", () => {
    const project = markupProject();
    const result = kgate(["--root", project.paths.root, "check", "nope"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/no task "nope" in .*tasks \(known: markup\)/);
  });
});
