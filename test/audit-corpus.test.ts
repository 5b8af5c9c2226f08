// The labelled leak corpus: every leak (each disguise, in each kind of place) is found as an error of
// the expected rule in the expected file, and no clean look-alike is an error.
import { describe, expect, it } from "vitest";
import { auditTaskById, type Finding } from "../src/audit/index.ts";
import { corpusFile, writeAuditTask } from "./support/audit-task.ts";
import { tempProject } from "./support/project.ts";
import { type WorkbookSpec, xlsxBytes } from "./support/xlsx.ts";

interface Case {
  id: string;
  label: "leak" | "clean";
  disguise: string;
  file: string;
  text?: string;
  xlsx?: WorkbookSpec;
  expect?: { rule: string; item?: string };
  /** Added to the corpus audit file for this case: more items, named context sets. */
  audit?: { items?: unknown[]; contextSets?: Record<string, string[]> };
  /** Replaces the first line of the corpus artefact (its canary comment). */
  artefactFirstLine?: string;
}

/** The corpus audit file with a case's additions. */
function auditOf(c: Case): unknown {
  const audit = JSON.parse(corpusFile("audit.json")) as { items: unknown[]; contextSets?: object };
  if (!c.audit) return audit;
  return {
    ...audit,
    items: [...audit.items, ...(c.audit.items ?? [])],
    contextSets: { ...audit.contextSets, ...c.audit.contextSets },
  };
}

function artefactOf(c: Case): string {
  const artefact = corpusFile("artefact.md");
  if (c.artefactFirstLine === undefined) return artefact;
  return [c.artefactFirstLine, ...artefact.split("\n").slice(1)].join("\n");
}

const corpus = JSON.parse(corpusFile("cases.json")) as { cases: Case[] };
const leaks = corpus.cases.filter((c) => c.label === "leak");
const cleans = corpus.cases.filter((c) => c.label === "clean");

async function auditCase(c: Case): Promise<{ errors: Finding[]; all: Finding[] }> {
  const paths = tempProject();
  const id = "case";
  const base = { audit: auditOf(c), artefact: artefactOf(c) };
  if (c.file === "instruction") {
    writeAuditTask(paths, id, { ...base, instruction: `${corpusFile("instruction.md")}\n${c.text}\n` });
  } else {
    const name = c.file.replace(/^environment\//, "");
    const content = c.xlsx ? await xlsxBytes(c.xlsx) : c.text!;
    writeAuditTask(paths, id, {
      ...base,
      environment: { "bom.csv": "assembly,part,qty\nA1,P1,3\n", [name]: content },
    });
  }
  const result = await auditTaskById(paths, id);
  expect(result.status, JSON.stringify(result.problems)).not.toBe("invalid");
  const errors = result.findings.filter((f) => f.severity === "error" && !f.suppressed);
  return { errors, all: result.findings };
}

describe("the labelled leak corpus", () => {
  it("has at least 40 leaking cases and 20 clean look-alikes with unique ids", () => {
    expect(leaks.length).toBeGreaterThanOrEqual(40);
    expect(cleans.length).toBeGreaterThanOrEqual(20);
    expect(new Set(corpus.cases.map((c) => c.id)).size).toBe(corpus.cases.length);
  });

  it("the base task (corpus instruction and a plain environment) is clean", async () => {
    const { errors } = await auditCase({
      id: "base",
      label: "clean",
      disguise: "",
      file: "instruction",
      text: "",
    });
    expect(errors).toEqual([]);
  });

  describe("finds every leak", () => {
    it.each(leaks.map((c) => [c.id, c] as const))("%s", async (_id, c) => {
      const { errors } = await auditCase(c);
      const where = c.file === "instruction" ? "tasks/case/instruction.md" : `tasks/case/${c.file}`;
      const expected = errors.filter(
        (f) =>
          f.rule === c.expect!.rule &&
          (c.expect!.item === undefined || f.item === c.expect!.item) &&
          f.file === where,
      );
      expect(
        expected,
        `${c.disguise}: errors were ${JSON.stringify(errors.map((f) => [f.rule, f.item, f.file]))}`,
      ).not.toEqual([]);
    });
  });

  describe("raises no error on a clean look-alike", () => {
    it.each(cleans.map((c) => [c.id, c] as const))("%s", async (_id, c) => {
      const { errors } = await auditCase(c);
      expect(errors.map((f) => `${f.rule} ${f.item ?? ""} ${f.message} ${f.match}`)).toEqual([]);
    });
  });
});
