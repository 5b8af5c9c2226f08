// The task.json schema: valid examples parse with defaults, invalid ones name the field.
import { describe, expect, it } from "vitest";
import { Condition, parseCondition, problemsFromZod, TaskSpec, variantOf } from "../src/task/index.ts";

const valid = {
  id: "bom-costing",
  title: "Roll up BOM costs",
  gate: "convention",
  domain: "manufacturing",
  artefact: {
    path: "docs/costing.md",
    description: "costing conventions",
    variants: { p: { kind: "perturbed" } },
  },
  outputs: [
    { path: "out/costs.csv", format: "csv", columns: [{ name: "part", type: "string" }], key: ["part"] },
  ],
};

function errorsOf(value: unknown): string[] {
  const r = TaskSpec.safeParse(value);
  if (r.success) return [];
  return problemsFromZod("tasks/x/task.json", r.error).map((p) => `${p.field}: ${p.message}`);
}

describe("TaskSpec", () => {
  it("accepts a minimal task and fills defaults for limits, solution and network", () => {
    const spec = TaskSpec.parse(valid);
    expect(spec.limits).toEqual({
      timeoutSec: 900,
      maxTurns: 50,
      maxTokens: 500000,
      cpus: 1,
      memoryMb: 1024,
      pids: 256,
    });
    expect(spec.network).toBe(false);
    expect(spec.solution.command).toContain("solve.sh");
    expect(spec.schemaVersion).toBe(1);
  });

  it("accepts JSON and text outputs", () => {
    const spec = TaskSpec.parse({
      ...valid,
      outputs: [
        { path: "a.json", format: "json", schema: { type: "object" } },
        { path: "report.md", format: "text" },
      ],
    });
    expect(spec.outputs.map((o) => o.format)).toEqual(["json", "text"]);
  });

  it("names the field and the types of a wrong-typed value", () => {
    expect(errorsOf({ ...valid, limits: { timeoutSec: "600" } })).toEqual([
      "limits.timeoutSec: expected number, got string",
    ]);
  });

  it("reports a missing required field", () => {
    const { title: _omitted, ...rest } = valid;
    expect(errorsOf(rest)).toEqual(["title: required field missing (expected string)"]);
  });

  it("rejects unknown fields, bad gates and array positions precisely", () => {
    expect(errorsOf({ ...valid, colour: "red" })).toEqual(["(root): unknown field(s): colour"]);
    expect(errorsOf({ ...valid, gate: "recipe" })[0]).toMatch(/^gate: /);
    expect(errorsOf({ ...valid, outputs: [{ ...valid.outputs[0], format: "xml" }] })[0]).toMatch(
      /^outputs\[0\]/,
    );
  });

  it("rejects paths that escape the work directory", () => {
    for (const bad of ["../etc/passwd", "/abs.md", "a/../../b", "a//b"]) {
      expect(errorsOf({ ...valid, artefact: { ...valid.artefact, path: bad } })[0]).toMatch(
        /^artefact\.path: must be a relative path/,
      );
    }
  });

  it("rejects non-slug ids and variant names", () => {
    expect(errorsOf({ ...valid, id: "Bom Costing" })[0]).toMatch(/^id: must be lower-case/);
    expect(
      errorsOf({ ...valid, artefact: { ...valid.artefact, variants: { "Bad Name": { kind: "perturbed" } } } })
        .length,
    ).toBe(1);
  });
});

describe("Condition", () => {
  it("parses +A, -A and variant:<name>", () => {
    expect(parseCondition("+A")).toBe("+A");
    expect(parseCondition("-A")).toBe("-A");
    expect(variantOf(parseCondition("variant:perturbed"))).toBe("perturbed");
    expect(variantOf("+A")).toBeUndefined();
  });

  it("rejects anything else", () => {
    for (const bad of ["A", "+a", "variant:", "variant:Bad Name", ""]) {
      expect(Condition.safeParse(bad).success).toBe(false);
      expect(() => parseCondition(bad)).toThrow(/expected \+A, -A or variant:<name>/);
    }
  });
});
