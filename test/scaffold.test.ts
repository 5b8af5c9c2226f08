// Scaffolding: `kgate new` writes every place of a task, with a fresh canary, and never overwrites.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadValidTask, scaffoldTask } from "../src/task/index.ts";
import { tempProject } from "./support/project.ts";

describe("scaffoldTask", () => {
  it("creates task, instruction, environment, solution, artefact, variants, verifier and audit", () => {
    const paths = tempProject();
    const { created } = scaffoldTask(paths, { id: "demo", gate: "operator" });
    expect(created).toEqual([
      "tasks/demo/task.json",
      "tasks/demo/instruction.md",
      "tasks/demo/environment/input.csv",
      "tasks/demo/generate.py",
      "tasks/demo/solution/solve.sh",
      "artefacts/demo/artefact.md",
      "artefacts/demo/variants/perturbed.md",
      "artefacts/demo/variants/compressed.md",
      "verifiers/demo.ts",
      "audits/demo.json",
    ]);
    const instruction = readFileSync(path.join(paths.tasks, "demo", "instruction.md"), "utf8");
    expect(instruction).toMatch(/established internal specification/);
    expect(instruction).toMatch(/If the established internal specification is not available/);
    expect(loadValidTask(paths, "demo").spec.gate).toBe("operator");
  });

  it("puts a fresh canary GUID in an HTML comment of each new artefact", () => {
    const paths = tempProject();
    const a = scaffoldTask(paths, { id: "one", gate: "convention" });
    const b = scaffoldTask(paths, { id: "two", gate: "convention" });
    expect(a.canary).not.toBe(b.canary);
    const text = readFileSync(path.join(paths.artefacts, "one", "artefact.md"), "utf8");
    expect(text.startsWith(`<!-- kgate-canary: ${a.canary} -->`)).toBe(true);
  });

  it("refuses to overwrite an existing task and writes nothing", () => {
    const paths = tempProject();
    scaffoldTask(paths, { id: "demo", gate: "convention" });
    const before = readFileSync(path.join(paths.tasks, "demo", "task.json"));
    expect(() => scaffoldTask(paths, { id: "demo", gate: "operator" })).toThrow(/already exists/);
    expect(readFileSync(path.join(paths.tasks, "demo", "task.json")).equals(before)).toBe(true);
  });

  it("refuses an id that is not a slug", () => {
    const paths = tempProject();
    expect(() => scaffoldTask(paths, { id: "Bad Id", gate: "convention" })).toThrow(/invalid task id/);
    expect(existsSync(paths.tasks)).toBe(false);
  });
});

describe("kgate new --gate operator", () => {
  it("writes the operator as pseudocode the audit's code pass reads, and passes the checks outside the sandbox once filled", async () => {
    const { kgateInProcess } = await import("./support/cli-in-process.ts");
    const { fillTodos } = await import("./support/todos.ts");
    const { artefactCode } = await import("../src/audit/artefact-code.ts");
    const paths = tempProject();
    scaffoldTask(paths, { id: "demo", gate: "operator" });
    const artefact = readFileSync(path.join(paths.artefacts, "demo", "artefact.md"), "utf8");
    expect(artefact).toMatch(/^ {4}for each item:\n {8}value = quantity \* \(1 \+ rate\)$/m);
    expect(artefactCode(artefact).map((b) => b.kind)).toEqual(["code block"]);
    fillTodos(paths, "demo");
    const result = await kgateInProcess(["--root", paths.root, "check", "--no-sandbox", "--json"]);
    const checks = (
      JSON.parse(result.stdout) as { tasks: Array<{ checks: Array<{ id: string; status: string }> }> }
    ).tasks[0]!.checks;
    expect(checks.filter((c) => c.status === "fail")).toEqual([]);
    expect(result.code).toBe(0);
  });
});
