// The leaked-code pass (src/audit/code-pass.ts): the artefact's code blocks and formula lines
// against the environment's code files as winnowed token fingerprints. A labelled corpus of leaked
// and clean code (test/fixtures/leaked-code) and the library's own oracles hold its thresholds.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { artefactCode } from "../src/audit/artefact-code.ts";
import { CODE_ERROR_SHARE, codeFindings, codeLanguage } from "../src/audit/code-pass.ts";
import { codeTokens } from "../src/audit/code-tokens.ts";
import { auditTaskById, buildReport, formatSarif } from "../src/audit/index.ts";
import { gramHashes, winnow } from "../src/audit/winnow.ts";
import { writeAuditTask } from "./support/audit-task.ts";
import { tempProject } from "./support/project.ts";

const ROOT = path.resolve(import.meta.dirname, "..");
const CORPUS = path.join(import.meta.dirname, "fixtures", "leaked-code");
const ARTEFACT = readFileSync(path.join(CORPUS, "artefact.md"), "utf8");
const source = { artefactFile: "artefacts/hyd/artefact.md", blocks: artefactCode(ARTEFACT) };

function corpus(label: "leaked" | "clean"): Array<[string, string]> {
  const dir = path.join(CORPUS, label);
  return readdirSync(dir).map((name) => [name, readFileSync(path.join(dir, name), "utf8")]);
}

describe("the lexer and the winnowing", () => {
  it("reads Python and JavaScript of the same statement into the same tokens", () => {
    const py = codeTokens("quick[i] = alpha * quick[i - 1]  # the filter\n", "python").ids;
    const js = codeTokens("out[j] = k * out[j - 1]; // the filter\n", "c").ids;
    expect(py).toEqual(js);
    // V [ V ] = V * V [ V - N ]: 13 tokens, names and the literal normalised, comments gone.
    expect(py).toHaveLength(13);
  });

  it("winnows: a window of 4 hashes keeps its smallest, each position once", () => {
    // Windows [5 3 8 6] [3 8 6 1] [8 6 1 9]: minima at 1 (3), 3 (1), 3 again (kept once).
    expect(winnow(Uint32Array.from([5, 3, 8, 6, 1, 9]), 4)).toEqual([
      { hash: 3, at: 1 },
      { hash: 1, at: 4 },
    ]);
  });

  it("hashes one k-gram per start position", () => {
    expect(gramHashes([1, 2, 3, 4, 5, 6, 7], 6)).toHaveLength(2);
    expect(gramHashes([1, 2, 3], 6)).toHaveLength(0);
  });

  it("knows code files by extension and by #! line", () => {
    expect(codeLanguage("tools/filter.py", "")).toBe("python");
    expect(codeLanguage("bin/run", "#!/usr/bin/env node\n")).toBe("c");
    expect(codeLanguage("bin/run", "#!/bin/sh\n")).toBe("shell");
    expect(codeLanguage("notes.txt", "a = b + c\n")).toBeUndefined();
  });
});

describe("the artefact's code", () => {
  it("finds the indented pass (lines 25-31) and the index (line 38) as blocks", () => {
    const blocks = artefactCode(ARTEFACT);
    expect(blocks.map((b) => [b.kind, b.startLine, b.endLine])).toEqual([
      ["code block", 25, 31],
      ["code block", 38, 38],
    ]);
  });

  it("reads formula lines of the prose as one block, canary and markers left out", () => {
    const text =
      "<!-- kgate-canary: 6b0f3c1e-2a47-4d8e-9f15-7c3d2e9a4b60 -->\n# Note\n\nThe rate is r = (a + b) / (2 * n) per day.\nPlain prose.\nThen s = r * (1 - r) * m for each.\n";
    expect(artefactCode(text).map((b) => [b.kind, b.startLine, b.endLine])).toEqual([
      ["formula lines", 4, 6],
    ]);
  });
});

describe("the labelled corpus", () => {
  const figures: string[] = [];
  it.each(corpus("leaked"))("finds leaked/%s as an error naming both places", (name, text) => {
    const findings = codeFindings("hyd", source, `tasks/hyd/environment/${name}`, name, text);
    const errors = findings.filter((f) => f.severity === "error");
    figures.push(`${name} ${findings.map((f) => f.similarity).join(" ")}`);
    expect(errors.length, `${name}: ${JSON.stringify(findings.map((f) => f.message))}`).toBeGreaterThan(0);
    expect(errors[0]!.related).toEqual({
      file: "artefacts/hyd/artefact.md",
      location: { line: 25, column: 1, endLine: 31, endColumn: 1 },
    });
    expect(errors[0]!.similarity).toBeGreaterThanOrEqual(CODE_ERROR_SHARE);
    expect(errors[0]!.message).toMatch(
      /^code matching the artefact's code block at artefacts\/hyd\/artefact\.md:25-31: \d+ of its \d+ fingerprints \(\d+% similar/,
    );
  });

  it.each(corpus("clean"))("reports no error in clean/%s", (name, text) => {
    const findings = codeFindings("hyd", source, `tasks/hyd/environment/${name}`, name, text);
    expect(findings.filter((f) => f.severity === "error")).toEqual([]);
  });
});

describe("the library's oracles as code of another task", () => {
  it("no task's solution is an error against any other task's artefact", () => {
    const tasks = readdirSync(path.join(ROOT, "tasks"));
    for (const artefactOf of tasks) {
      const text = readFileSync(path.join(ROOT, "artefacts", artefactOf, "artefact.md"), "utf8");
      const blocks = { artefactFile: `artefacts/${artefactOf}/artefact.md`, blocks: artefactCode(text) };
      for (const task of tasks.filter((t) => t !== artefactOf)) {
        const dir = path.join(ROOT, "tasks", task, "solution");
        for (const name of readdirSync(dir)) {
          const findings = codeFindings(
            artefactOf,
            blocks,
            `${dir}/${name}`,
            name,
            readFileSync(path.join(dir, name), "utf8"),
          );
          expect(
            findings.filter((f) => f.severity === "error"),
            `${task}/${name} vs ${artefactOf}`,
          ).toEqual([]);
        }
      }
    }
  });
});

describe("kgate audit finds the operator leaked as code", () => {
  it("an environment tools/filter.py implementing the artefact's passes, with no constant in it", async () => {
    const paths = tempProject();
    writeAuditTask(paths, "hyd", {
      artefact: ARTEFACT,
      audit: { items: [{ id: "alpha", kind: "number", value: 0.975, context: ["filter"] }] },
      environment: {
        "flows.csv": "day,flow\n1,3.2\n2,4.8\n",
        "tools/filter.py": readFileSync(path.join(CORPUS, "leaked", "separate.py"), "utf8"),
      },
    });
    const result = await auditTaskById(paths, "hyd");
    expect(result.status).toBe("findings");
    const code = result.findings.filter((f) => f.rule === "artefact-code");
    expect(code).toHaveLength(1);
    expect(code[0]).toMatchObject({
      severity: "error",
      file: "tasks/hyd/environment/tools/filter.py",
      related: { file: "artefacts/hyd/artefact.md", location: { line: 25, endLine: 31 } },
    });
    // The SARIF result carries the artefact's block as a related location.
    const sarif = JSON.parse(formatSarif(buildReport([result]), "test"));
    const located = sarif.runs[0].results.find((r: { ruleId: string }) => r.ruleId === "artefact-code");
    expect(located.relatedLocations[0].physicalLocation).toEqual({
      artifactLocation: { uri: "artefacts/hyd/artefact.md", uriBaseId: "%SRCROOT%" },
      region: { startLine: 25, endLine: 31 },
    });
  });
});
