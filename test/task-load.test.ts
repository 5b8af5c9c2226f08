// Loading tasks: scaffolded tasks are valid; broken ones are reported by file and field, never hiding others.
import { mkdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { formatProblem, loadAllTasks, loadTask, loadValidTask, scaffoldTask } from "../src/task/index.ts";
import { tempProject } from "./support/project.ts";

describe("loadTask", () => {
  it("loads a scaffolded task as valid, with its canary and variants", () => {
    const paths = tempProject();
    const { canary } = scaffoldTask(paths, { id: "demo", gate: "convention" });
    const result = loadTask(paths, "demo");
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.task.artefact.canary).toBe(canary);
    expect(result.task.variants.map((v) => [v.name, v.kind])).toEqual([
      ["perturbed", "perturbed"],
      ["compressed", "compressed"],
    ]);
    expect(result.task.environment.map((f) => f.path)).toEqual(["input.csv"]);
    expect(result.warnings).toEqual([]);
  });

  it("reports invalid JSON with line and column", () => {
    const paths = tempProject();
    scaffoldTask(paths, { id: "demo", gate: "convention" });
    writeFileSync(path.join(paths.tasks, "demo", "task.json"), '{\n  "id": "demo",\n  oops\n}\n');
    const result = loadTask(paths, "demo");
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(formatProblem(result.errors[0]!)).toMatch(
      /^tasks\/demo\/task\.json: line 3, column \d+: invalid JSON/,
    );
  });

  // Node 20's JSON.parse names no position for these; the problem still names line and column.
  it.each([
    [
      "a truncated file",
      '{\n  "id": "demo",\n  "gate": [\n',
      "line 4, column 1",
      "CloseBracketExpected, found the end of the file",
    ],
    ["an empty file", "", "line 1, column 1", "ValueExpected, found the end of the file"],
    [
      "a bad literal",
      '{\n  "id": "demo",\n  "x": tru\n}\n',
      "line 3, column 8",
      'InvalidSymbol, found "tru"',
    ],
    [
      "a trailing comma",
      '{\n  "tags": [\n    "a",\n  ]\n}\n',
      "line 4, column 3",
      'ValueExpected, found "]"',
    ],
  ])("names line and column for %s", (_name, text, where, message) => {
    const paths = tempProject();
    scaffoldTask(paths, { id: "demo", gate: "convention" });
    writeFileSync(path.join(paths.tasks, "demo", "task.json"), text);
    const result = loadTask(paths, "demo");
    expect(!result.ok && result.errors.map(formatProblem)).toEqual([
      `tasks/demo/task.json: ${where}: invalid JSON: ${message}`,
    ]);
  });

  it("says clearly which companion file is missing", () => {
    const paths = tempProject();
    scaffoldTask(paths, { id: "demo", gate: "operator" });
    unlinkSync(path.join(paths.verifiers, "demo.ts"));
    unlinkSync(path.join(paths.audits, "demo.json"));
    const result = loadTask(paths, "demo");
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map(formatProblem)).toEqual([
      "verifiers/demo.ts: the verifier is missing (verifiers/<id>.ts)",
      "audits/demo.json: the leak-audit file is missing (audits/<id>.json)",
    ]);
  });

  it("keeps listing the other tasks when one is broken", () => {
    const paths = tempProject();
    scaffoldTask(paths, { id: "alpha", gate: "convention" });
    scaffoldTask(paths, { id: "beta", gate: "convention" });
    scaffoldTask(paths, { id: "gamma", gate: "convention" });
    const file = path.join(paths.tasks, "beta", "task.json");
    const spec = JSON.parse(readFileSync(file, "utf8"));
    spec.limits.timeoutSec = "600";
    writeFileSync(file, JSON.stringify(spec));
    const results = loadAllTasks(paths);
    expect(results.map((r) => [r.id, r.ok])).toEqual([
      ["alpha", true],
      ["beta", false],
      ["gamma", true],
    ]);
    const beta = results[1]!;
    expect(beta.ok ? [] : beta.errors.map(formatProblem)).toEqual([
      "tasks/beta/task.json: limits.timeoutSec: expected number, got string",
    ]);
  });

  it("fails a task whose instruction names the artefact file", () => {
    const paths = tempProject();
    scaffoldTask(paths, { id: "demo", gate: "convention" });
    const file = path.join(paths.tasks, "demo", "instruction.md");
    writeFileSync(file, "Do the thing.\nSee docs/internal/SPECIFICATION.md for the rules.\n");
    const result = loadTask(paths, "demo");
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map(formatProblem)).toContain(
      'tasks/demo/instruction.md: line 2: the instruction mentions the artefact\'s file name or path "docs/internal/specification.md"; refer to "the established internal specification" instead',
    );
  });

  it("warns when the artefact is outside the kilobyte scale", () => {
    const paths = tempProject();
    scaffoldTask(paths, { id: "demo", gate: "convention" });
    writeFileSync(path.join(paths.artefacts, "demo", "artefact.md"), "tiny");
    const small = loadTask(paths, "demo");
    expect(small.ok).toBe(true);
    expect(small.warnings.map((w) => w.message).join("\n")).toMatch(
      /artefact is 4 B, outside the kilobyte scale/,
    );
    expect(small.warnings.map((w) => w.message).join("\n")).toMatch(/no canary GUID/);
    writeFileSync(path.join(paths.artefacts, "demo", "artefact.md"), "x".repeat(17 * 1024));
    expect(
      loadTask(paths, "demo")
        .warnings.map((w) => w.message)
        .join(),
    ).toMatch(/artefact is 17408 B/);
  });

  it("errors on a declared variant without a file and warns on an undeclared file", () => {
    const paths = tempProject();
    scaffoldTask(paths, { id: "demo", gate: "convention" });
    const variants = path.join(paths.artefacts, "demo", "variants");
    rmSync(path.join(variants, "perturbed.md"));
    writeFileSync(path.join(variants, "stray.md"), "stray");
    const result = loadTask(paths, "demo");
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map(formatProblem)).toEqual([
      "tasks/demo/task.json: artefact.variants.perturbed: declared variant has no file artefacts/demo/variants/perturbed.md",
    ]);
    expect(result.warnings.map(formatProblem).join()).toMatch(/variant "stray" is not declared/);
  });

  it("rejects an artefact path that collides with an environment file", () => {
    const paths = tempProject();
    scaffoldTask(paths, { id: "demo", gate: "convention" });
    const envFile = path.join(paths.tasks, "demo", "environment", "docs", "internal", "specification.md");
    mkdirSync(path.dirname(envFile), { recursive: true });
    writeFileSync(envFile, "decoy");
    expect(() => loadValidTask(paths, "demo")).toThrow(
      /artefact\.path: "docs\/internal\/specification\.md" collides/,
    );
  });
});
