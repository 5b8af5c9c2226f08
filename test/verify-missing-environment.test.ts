// A removed environment file (issue 47 item 4): bom-costing's solver, given no bom.csv, parsed empty
// text and said only "bom.csv: no header line". The environment the solver sees notes each file it
// asks for that the task lacks; when the solver then throws, the message names the missing file (its
// path in the task), what the environment has, and the fix, before the throw itself.
import { readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { deadRuleStep } from "../src/check/convention-steps.ts";
import { checkTask } from "../src/check/index.ts";
import { schemaStep } from "../src/check/static-steps.ts";
import { deterministicStep, verifierStep } from "../src/check/verifier-steps.ts";
import { copyLibraryTask } from "./support/library-task.ts";
import { tempProject } from "./support/project.ts";

const STEPS = [schemaStep, verifierStep, deterministicStep, deadRuleStep];

describe("a removed environment file", () => {
  it("is named by the verifier's failure, with the task's other files and the fix", async () => {
    const paths = tempProject();
    copyLibraryTask(paths, "bom-costing");
    rmSync(path.join(paths.tasks, "bom-costing", "environment", "bom.csv"));
    const result = await checkTask(paths, "bom-costing", { steps: STEPS });
    const step = result.checks.find((c) => c.id === "deterministic")!;
    // the verifier's own line that threw: its CSV reader's refusal of the empty text
    const source = readFileSync(path.join(paths.verifiers, "bom-costing.ts"), "utf8").split("\n");
    const line = source.findIndex((l) => l.includes("if (!parsed.ok) throw new Error(")) + 1;
    expect(step.status).toBe("fail");
    expect(step.detail).toBe(
      "environment/bom.csv is missing from tasks/bom-costing (the solver reads it; the environment has " +
        "parts.csv, prices.csv): restore it (the task's data generator writes the environment) or stop " +
        `reading it in verifiers/bom-costing.ts; then verifiers/bom-costing.ts:${line}: solve() threw under ` +
        "the artefact conventions: bom.csv: no header line",
    );
    // the dead-rules step runs the solver itself (under each convention's default): the same sentence
    const deadRules = result.checks.find((c) => c.id === "dead-rules")!;
    expect(deadRules.status).toBe("fail");
    expect(deadRules.detail).toContain(
      "environment/bom.csv is missing from tasks/bom-costing (the solver reads it; the environment has " +
        "parts.csv, prices.csv)",
    );
    expect(deadRules.detail).toContain(
      `verifiers/bom-costing.ts:${line}: solve() threw under the artefact conventions`,
    );
  });

  it("is not named when the solver reads only files the task has", async () => {
    const paths = tempProject();
    copyLibraryTask(paths, "bom-costing");
    const result = await checkTask(paths, "bom-costing", { steps: STEPS });
    expect(result.checks.find((c) => c.id === "deterministic")!.status).toBe("pass");
  });
});
