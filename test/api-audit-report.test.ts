// The library's audit and report (src/api/, package export "kgate"): typed results as the CLI's
// verbs print them, and the errors a caller can catch (UsageError, GitError) with the CLI's messages.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { audit, GitError, openProject, report, UsageError } from "../src/api/index.ts";
import { corpusFile, writeAuditTask } from "./support/audit-task.ts";
import { paperRun } from "./support/paper-run.ts";
import { tempProject } from "./support/project.ts";

const leak = `${corpusFile("instruction.md")}\nMissing prices follow the ZERO_FILL rule.\n`;

describe("audit()", () => {
  it("audits every task, or the named ones, with each task's status and the counts", async () => {
    const paths = tempProject();
    writeAuditTask(paths, "clean");
    writeAuditTask(paths, "leaky", { instruction: leak });
    const project = openProject(paths.root);
    const all = await audit(project);
    expect(all.tasks.map((t) => [t.id, t.status])).toEqual([
      ["clean", "clean"],
      ["leaky", "findings"],
    ]);
    // One gated string (ZERO_FILL, written zero-fill in the audit file) in leaky's instruction.
    expect(all.counts.error).toBe(1);
    const one = await audit(project, { tasks: ["clean"] });
    expect(one.tasks.map((t) => t.id)).toEqual(["clean"]);
    expect(one.counts.error).toBe(0);
  });

  it("throws a UsageError naming an unknown task, and GitError for --staged outside git", async () => {
    const paths = tempProject();
    writeAuditTask(paths, "a");
    const project = openProject(paths.root);
    const unknown = audit(project, { tasks: ["nope"] });
    await expect(unknown).rejects.toBeInstanceOf(UsageError);
    await expect(unknown).rejects.toThrow(/nope/);
    await expect(audit(project, { staged: true })).rejects.toBeInstanceOf(GitError);
  });
});

describe("report()", () => {
  it("summarises a calibration run from its files and writes the report files", () => {
    const paths = tempProject();
    paperRun(paths);
    const out = path.join(paths.root, "site");
    const result = report(openProject(paths.root), "paper", { out });
    // The paper's run: 15 tasks x 4 cells (frontier+A, frontier-A, mid+A, control) x 5 trials = 300.
    expect(result.summary.totals.trials).toBe(300);
    expect(result.summary.tasks).toHaveLength(15);
    const names = ["summary.json", "report.md", "report.svg", "report.html", "table1.csv", "table1.tex"];
    expect(result.written).toEqual(names.map((n) => path.join(out, n)));
    for (const file of result.written) expect(existsSync(file)).toBe(true);
  });

  it("throws a UsageError pointing at `kgate show` for a run of trials without a plan", () => {
    const paths = tempProject();
    mkdirSync(path.join(paths.runs, "r1"), { recursive: true });
    writeFileSync(path.join(paths.runs, "r1", "trials.jsonl"), "");
    expect(() => report(openProject(paths.root), "r1")).toThrow(UsageError);
    expect(() => report(openProject(paths.root), "r1")).toThrow(/see them with `kgate show r1`/);
  });
});
