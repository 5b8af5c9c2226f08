// Auditing a whole task through the library: statuses, configuration errors, allowlist, coverage,
// locations in every kind of file, stable fingerprints, and SARIF valid against the 2.1.0 schema.
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import Ajv from "ajv-draft-04";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { runAudit } from "../src/audit/audit.ts";
import {
  auditTask,
  auditTaskById,
  buildReport,
  formatSarif,
  readAuditInput,
  redactReport,
  workingTree,
} from "../src/audit/index.ts";
import { loadValidTask, scaffoldTask } from "../src/task/index.ts";
import { corpusFile, writeAuditTask } from "./support/audit-task.ts";
import { tempProject } from "./support/project.ts";
import { xlsxBytes } from "./support/xlsx.ts";

const corpusAudit = () => JSON.parse(corpusFile("audit.json"));
const leakyInstruction = `${corpusFile("instruction.md")}\nAdd a 12% overhead to each assembly.\n`;

describe("auditing a task", () => {
  it("finds a scaffolded task clean, through the loaded task and by id alike", async () => {
    const paths = tempProject();
    scaffoldTask(paths, { id: "demo", gate: "convention" });
    const byId = await auditTaskById(paths, "demo");
    expect(byId).toMatchObject({
      status: "clean",
      counts: { error: 0, warning: 0, suppressed: 0 },
      files: 2,
    });
    const loaded = await auditTask(paths, loadValidTask(paths, "demo"));
    expect(loaded).toEqual(byId);
  });

  it("reports findings with file, line and column, and the status `findings`", async () => {
    const paths = tempProject();
    writeAuditTask(paths, "t", { instruction: leakyInstruction });
    const result = await auditTaskById(paths, "t");
    expect(result.status).toBe("findings");
    const [finding] = result.findings.filter((f) => f.severity === "error");
    expect(finding).toMatchObject({
      rule: "gated-number",
      item: "overhead-rate",
      file: "tasks/t/instruction.md",
      location: { line: 9, column: 7, endLine: 9, endColumn: 10 },
      match: "12%",
    });
  });

  it("locates xlsx cells, file names and base64 blobs", async () => {
    const paths = tempProject();
    writeAuditTask(paths, "t", {
      environment: {
        "overhead_12pct.csv": "a\n1\n",
        "book.xlsx": await xlsxBytes({
          sheets: [
            {
              name: "Rates",
              rows: [
                ["kind", "factor"],
                ["x", { value: 0.12, numFmt: "0.0%" }],
              ],
            },
          ],
        }),
        "blob.txt": "config\npayload: WkVST19GSUxMIHJ1bGU=\n",
      },
    });
    const { findings } = await auditTaskById(paths, "t");
    const errors = findings.filter((f) => f.severity === "error");
    expect(errors.find((f) => f.file.endsWith("overhead_12pct.csv"))?.location).toMatchObject({
      part: "file name",
    });
    expect(errors.find((f) => f.file.endsWith("book.xlsx"))).toMatchObject({
      location: { cell: "Rates!B2", part: "formatted text" },
      match: "12.0%",
    });
    expect(errors.find((f) => f.file.endsWith("blob.txt"))).toMatchObject({
      rule: "gated-string",
      via: ["base64"],
      location: { line: 2, column: 10 },
    });
  });

  it("reads environment files when it scans them: one gone by then is an unreadable-file error", async () => {
    const paths = tempProject();
    writeAuditTask(paths, "t", { environment: { "a.csv": "x,y\n1,2\n", "b.csv": "x,y\n3,4\n" } });
    const input = readAuditInput("t", workingTree(paths));
    expect(input.input!.environment.map((e) => e.content)).toEqual([
      { path: path.join(paths.tasks, "t", "environment", "a.csv"), size: 8 },
      { path: path.join(paths.tasks, "t", "environment", "b.csv"), size: 8 },
    ]);
    rmSync(path.join(paths.tasks, "t", "environment", "b.csv"));
    const result = await runAudit(input.input!);
    expect(result.status).toBe("findings");
    expect(result.findings.filter((f) => f.severity === "error")).toMatchObject([
      {
        rule: "unreadable-file",
        file: "tasks/t/environment/b.csv",
        message: expect.stringContaining("ENOENT"),
      },
    ]);
  });

  it("counts bare look-alikes once per file as a warning", async () => {
    const paths = tempProject();
    writeAuditTask(paths, "t", { environment: { "qty.csv": "part,qty\nP1,12\nP2,12\nP3,12\n" } });
    const { status, findings } = await auditTaskById(paths, "t");
    expect(status).toBe("clean");
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ severity: "warning", count: 3, location: { line: 2 } });
  });

  it("finds an amount in words with a currency: thirty-eight euros fifty is 38.50", async () => {
    const paths = tempProject();
    const audit = {
      ...corpusAudit(),
      items: [{ id: "minimum-charge", kind: "number", value: 38.5, as: "quantity", context: ["minimum"] }],
    };
    writeAuditTask(paths, "t", {
      audit,
      artefact: `${corpusFile("artefact.md")}\nThe minimum charge is 38.50.\n`,
      instruction: `${corpusFile("instruction.md")}\nNo consignment is billed below thirty-eight euros fifty as a minimum.\n`,
    });
    const { status, findings } = await auditTaskById(paths, "t");
    expect(status).toBe("findings");
    expect(findings.find((f) => f.item === "minimum-charge")).toMatchObject({
      severity: "error",
      file: "tasks/t/instruction.md",
      match: "thirty-eight euros fifty",
    });
  });

  it("keeps a whole number equal to a rounding step's reciprocal a warning, even next to a keyword", async () => {
    const paths = tempProject();
    // Weights round up to the next 0.5 kg: its reciprocal is 2, which "2 decimals" shows.
    const audit = {
      ...corpusAudit(),
      items: [{ id: "weight-step", kind: "number", value: 0.5, as: "quantity", context: ["round"] }],
    };
    writeAuditTask(paths, "t", {
      audit,
      artefact: `${corpusFile("artefact.md")}\nRound weights up to the next 0.5 kg.\n`,
      instruction: `${corpusFile("instruction.md")}\nRound every amount to 2 decimals.\n`,
    });
    const { status, findings } = await auditTaskById(paths, "t");
    const step = findings.filter((f) => f.item === "weight-step");
    expect(step.map((f) => [f.severity, f.file, f.match])).toEqual([
      ["warning", "tasks/t/instruction.md", "2"],
    ]);
    expect(step[0]!.message).toContain("reciprocal");
    expect(status).toBe("clean");
    // Declared as an equivalent, the same 2 is an error next to the keyword.
    writeAuditTask(paths, "u", {
      audit: { ...audit, items: [{ ...audit.items[0], equivalents: [2] }] },
      artefact: `${corpusFile("artefact.md")}\nRound weights up to the next 0.5 kg.\n`,
      instruction: `${corpusFile("instruction.md")}\nRound every amount to 2 decimals.\n`,
    });
    expect((await auditTaskById(paths, "u")).status).toBe("findings");
  });

  it("keeps fingerprints stable when lines are added above a finding", async () => {
    const paths = tempProject();
    writeAuditTask(paths, "t", { instruction: leakyInstruction });
    const before = (await auditTaskById(paths, "t")).findings.map((f) => f.fingerprint);
    writeFileSync(
      path.join(paths.tasks, "t", "instruction.md"),
      `Intro line.\n\nAnother one.\n${leakyInstruction}`,
    );
    const after = await auditTaskById(paths, "t");
    expect(after.findings.map((f) => f.fingerprint)).toEqual(before);
    expect(after.findings[0]?.location.line).toBe(12);
  });

  it("warns about numbers of the artefact that no item declares, unless ignored with a reason", async () => {
    const paths = tempProject();
    const artefact = `${corpusFile("artefact.md")}\nScrap allowance: 4.5% of every order.\n`;
    writeAuditTask(paths, "t", { artefact });
    const { findings } = await auditTaskById(paths, "t");
    expect(findings.map((f) => [f.rule, f.severity, f.file, f.match])).toEqual([
      ["coverage", "warning", "artefacts/t/artefact.md", "4.5%"],
    ]);
    writeAuditTask(paths, "u", {
      artefact,
      audit: { ...corpusAudit(), ignoreNumbers: [{ value: 0.045, reason: "scrap is public knowledge" }] },
    });
    expect((await auditTaskById(paths, "u")).findings).toEqual([]);
  });
});

describe("audit configuration errors", () => {
  it("a missing audit file makes the task invalid, never a silent pass", async () => {
    const paths = tempProject();
    writeAuditTask(paths, "t");
    writeFileSync(path.join(paths.audits, "t.json"), "");
    const { rmSync } = await import("node:fs");
    rmSync(path.join(paths.audits, "t.json"));
    const result = await auditTaskById(paths, "t");
    expect(result.status).toBe("invalid");
    expect(result.problems[0]).toMatchObject({
      file: "audits/t.json",
      message: expect.stringMatching(/missing/),
    });
  });

  it("names the file and field of an invalid item, and the line of a JSON syntax error", async () => {
    const paths = tempProject();
    writeAuditTask(paths, "t", { audit: { items: [{ id: "r", kind: "number", value: "twelve" }] } });
    const invalid = await auditTaskById(paths, "t");
    expect(invalid.status).toBe("invalid");
    expect(invalid.problems[0]).toMatchObject({ file: "audits/t.json", field: "items[0].value" });
    writeFileSync(path.join(paths.audits, "t.json"), '{\n  "items": [,]\n}\n');
    const syntax = await auditTaskById(paths, "t");
    expect(syntax.status).toBe("invalid");
    expect(syntax.problems[0]).toMatchObject({
      file: "audits/t.json",
      field: "line 2, column 13",
      message: expect.stringMatching(/invalid JSON/),
    });
  });

  // Node 20's JSON.parse names no position for these; the problem still names line and column.
  it.each([
    [
      "a truncated file",
      '{\n  "items": [\n    {"id": "r",',
      "line 3, column 16",
      "PropertyNameExpected, found the end of the file",
    ],
    ["an empty file", "", "line 1, column 1", "ValueExpected, found the end of the file"],
    ["a bad literal", '{\n  "items": nul\n}\n', "line 2, column 12", 'InvalidSymbol, found "nul"'],
    ["a trailing comma", '{\n  "items": [],\n}\n', "line 3, column 1", 'PropertyNameExpected, found "}"'],
  ])("names line and column of a syntax error in the audit file: %s", async (_name, text, where, message) => {
    const paths = tempProject();
    writeAuditTask(paths, "t");
    writeFileSync(path.join(paths.audits, "t.json"), text);
    const result = await auditTaskById(paths, "t");
    expect(result.status).toBe("invalid");
    expect(result.problems).toEqual([
      { severity: "error", file: "audits/t.json", field: where, message: `invalid JSON: ${message}` },
    ]);
  });
});

describe("the allowlist", () => {
  async function fingerprintOfLeak(): Promise<string> {
    const paths = tempProject();
    writeAuditTask(paths, "t", { instruction: leakyInstruction });
    return (await auditTaskById(paths, "t")).findings[0]!.fingerprint;
  }

  it("suppresses a finding by fingerprint; the finding stays in the report, marked", async () => {
    const fp = await fingerprintOfLeak();
    const paths = tempProject();
    const allowlist = [
      { fingerprint: fp, reason: "the public list price already shows it", expires: "2999-01-01" },
    ];
    writeAuditTask(paths, "t", { instruction: leakyInstruction, audit: { ...corpusAudit(), allowlist } });
    const result = await auditTaskById(paths, "t");
    expect(result.status).toBe("clean");
    expect(result.counts).toEqual({ error: 0, warning: 0, suppressed: 1 });
    expect(result.findings[0]?.suppressed).toEqual({ reason: allowlist[0]!.reason, expires: "2999-01-01" });
  });

  it("an entry without a reason is an error and suppresses nothing; expired and unused entries warn", async () => {
    const fp = await fingerprintOfLeak();
    const paths = tempProject();
    const allowlist = [
      { fingerprint: fp },
      { fingerprint: fp, reason: "was fine last year", expires: "2020-01-01" },
      { fingerprint: "0".repeat(32), reason: "stale" },
    ];
    writeAuditTask(paths, "t", { instruction: leakyInstruction, audit: { ...corpusAudit(), allowlist } });
    const result = await auditTaskById(paths, "t");
    expect(result.counts).toEqual({ error: 2, warning: 2, suppressed: 0 });
    expect(result.findings.map((f) => [f.rule, f.severity, f.location.part])).toEqual([
      ["gated-number", "error", undefined],
      ["allowlist-no-reason", "error", "allowlist[0]"],
      ["allowlist-expired", "warning", "allowlist[1]"],
      ["allowlist-unused", "warning", "allowlist[2]"],
    ]);
  });
});

describe("SARIF output", () => {
  it("validates against the SARIF 2.1.0 schema and carries fingerprints and suppressions", async () => {
    const fp = (
      await (async () => {
        const p = tempProject();
        writeAuditTask(p, "t", { instruction: leakyInstruction });
        return auditTaskById(p, "t");
      })()
    ).findings[0]!.fingerprint;
    const paths = tempProject();
    writeAuditTask(paths, "t", {
      instruction: `${leakyInstruction}Apply the ZERO_FILL rule.\n`,
      audit: { ...corpusAudit(), allowlist: [{ fingerprint: fp, reason: "accepted" }] },
      environment: {
        "overhead_12pct.csv": "a\n1\n",
        "book.xlsx": await xlsxBytes({ sheets: [{ name: "S", rows: [["overhead"], [0.12]] }] }),
      },
    });
    const report = redactReport(buildReport([await auditTaskById(paths, "t")]), false);
    const sarif = JSON.parse(formatSarif(report, "0.1.0"));
    const schema = JSON.parse(
      readFileSync(path.resolve(import.meta.dirname, "fixtures/sarif/sarif-2.1.0-rtm.5.json"), "utf8"),
    );
    // The schema's language-tag pattern is not valid with the `u` flag.
    const ajv = new Ajv.default({ allErrors: true, strict: false, unicodeRegExp: false });
    addFormats.default(ajv);
    const validate = ajv.compile(schema);
    expect(validate(sarif), JSON.stringify(validate.errors)).toBe(true);
    const results = sarif.runs[0].results as Array<{
      partialFingerprints: Record<string, string>;
      suppressions?: unknown;
    }>;
    expect(results.length).toBeGreaterThanOrEqual(4);
    expect(results.every((r) => /^[0-9a-f]{32}$/.test(r.partialFingerprints["kgate/v1"] ?? ""))).toBe(true);
    expect(results.find((r) => r.partialFingerprints["kgate/v1"] === fp)?.suppressions).toEqual([
      { kind: "external", status: "accepted", justification: "accepted" },
    ]);
    expect(JSON.stringify(sarif)).not.toContain("ZERO_FILL");
  });
});
