// The library's audit, check (without a sandbox) and report (src/api/, package export "kgate"): typed
// results as the CLI's verbs print them, the check's per-task event and abort, and the errors a caller
// can catch (UsageError, GitError) with the CLI's messages.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { audit, check, GitError, openProject, report, type TaskCheck, UsageError } from "../src/api/index.ts";
import { corpusFile, writeAuditTask } from "./support/audit-task.ts";
import { copyLibraryTask } from "./support/library-task.ts";
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

describe("check()", () => {
  it("checks the named tasks, each handed to onTask as it is done; no sandbox, no run", async () => {
    const paths = tempProject();
    copyLibraryTask(paths, "mortgage-escrow");
    const seen: TaskCheck[] = [];
    const result = await check(openProject(paths.root), {
      tasks: ["mortgage-escrow"],
      sandbox: false,
      onTask: (t) => seen.push(t),
    });
    expect(result.runId).toBeNull();
    expect(result.interrupted).toBe(false);
    expect(result.internalErrors).toEqual([]);
    expect(seen).toEqual(result.tasks);
    const [task] = result.tasks;
    expect(task!.id).toBe("mortgage-escrow");
    // Without a sandbox, the oracle and noop trials are not run: those two checks are unavailable.
    const status = (id: string) => task!.checks.find((c) => c.id === id)?.status;
    expect([status("oracle"), status("noop")]).toEqual(["unavailable", "unavailable"]);
    const { summary } = result;
    expect(summary.tasks).toBe(1);
    expect(summary.failed).toBe(0);
    // Every check is counted once, under its status.
    const total = summary.passed + summary.warnings + summary.failed + summary.unavailable + summary.skipped;
    expect(total).toBe(task!.checks.length);
  });

  it("starts no task once aborted, and names an unknown task", async () => {
    const paths = tempProject();
    copyLibraryTask(paths, "mortgage-escrow");
    const project = openProject(paths.root);
    const controller = new AbortController();
    controller.abort();
    const stopped = await check(project, { sandbox: false, signal: controller.signal });
    expect(stopped).toMatchObject({ tasks: [], interrupted: true, summary: { tasks: 0 } });
    await expect(check(project, { tasks: ["nope"], sandbox: false })).rejects.toThrow(UsageError);
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
