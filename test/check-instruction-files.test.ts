// `kgate check`'s instruction-files step (issue 47 item 3): a task whose instruction names an input
// the environment lacks (`suppliers.csv`) passed every check; now the step fails naming the file,
// its line and the fix. The names an instruction mentions are read apart from the step, too.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { namedFiles } from "../src/check/instruction-files-step.ts";
import { kgateInProcess } from "./support/cli-in-process.ts";
import { markupProject } from "./support/verify-fixture.ts";

describe("the files an instruction names", () => {
  it("are data file names, paths included, each once with the line of its first mention", () => {
    const text = [
      "Read `input.csv` and ./data/rates.json, then input.csv again.",
      "See https://example.com/page and version 1.5 of the spec (e.g. section 2.txt-like).",
      "Write output/result.csv. Logs go to run.log; ignore Makefile.",
    ].join("\n");
    expect(namedFiles(text)).toEqual([
      { name: "input.csv", line: 1 },
      { name: "data/rates.json", line: 1 },
      { name: "output/result.csv", line: 3 },
      { name: "run.log", line: 3 },
    ]);
  });
});

describe("kgate check: the instruction's files", () => {
  it("passes when every file the instruction names is in the environment or an output", async () => {
    const project = markupProject();
    const ran = await kgateInProcess(["--root", project.paths.root, "check", "markup", "--no-sandbox"]);
    expect(ran.stdout).toMatch(
      /^ {2}✓ instruction-files +each file the instruction names is in the environment, an output or the artefact: input\.csv, /m,
    );
  });

  it("fails naming an input the environment lacks, its line and the fix", async () => {
    const project = markupProject();
    const file = path.join(project.paths.tasks, "markup", "instruction.md");
    const lines = readFileSync(file, "utf8").split("\n");
    lines.splice(3, 0, "Supplier discounts are in `suppliers.csv`.");
    writeFileSync(file, lines.join("\n"));
    const ran = await kgateInProcess(["--root", project.paths.root, "check", "markup", "--no-sandbox"]);
    expect(ran.code).toBe(1);
    // the inserted line is the fourth
    expect(ran.stdout).toMatch(
      /^ {2}✗ instruction-files +the instruction names suppliers\.csv \(tasks\/markup\/instruction\.md:4\), which the environment lacks \(it has input\.csv\): add the file to tasks\/markup\/environment\/ or correct the instruction; a file the agent writes belongs in task\.json "outputs"$/m,
    );
  });
});
