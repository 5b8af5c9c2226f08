// `kgate report <run>` through the real argv parser and verb module, in process: Markdown on stdout,
// --json, the report files, and clear errors for a missing run, a broken plan, and a damaged line.
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { RunSummary } from "../src/report/index.ts";
import { kgateInProcess } from "./support/cli-in-process.ts";
import { paperRun } from "./support/paper-run.ts";
import { tempProject } from "./support/project.ts";

describe("kgate report", () => {
  it("prints Table 1, writes the report files, and --json matches the page's data", async () => {
    const paths = tempProject();
    const made = paperRun(paths);
    const text = await kgateInProcess(["--root", paths.root, "report", "paper"]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(
      "| task | gate | frontier+A | frontier-A | mid+A | control | decision | reasons |",
    );
    expect(text.stdout).toContain("| **all (15 tasks, pooled trials)** |  | 51/75 (68.0%) [56.8, 77.5] |");
    expect(text.stderr).toMatch(
      /^wrote runs\/paper\/summary\.json, runs\/paper\/report\.md, runs\/paper\/report\.svg, runs\/paper\/report\.html, runs\/paper\/table1\.csv, runs\/paper\/table1\.tex$/m,
    );

    const json = await kgateInProcess(["--root", paths.root, "report", "paper", "--json"]);
    expect(json.code).toBe(0);
    const summary = RunSummary.parse(JSON.parse(json.stdout));
    expect({ ...summary, generatedAt: "" }).toEqual({ ...made.summary, generatedAt: "" });
    const html = readFileSync(path.join(made.runDir, "report.html"), "utf8");
    const embedded = /<script type="application\/json" id="kgate-summary">(.*?)<\/script>/s.exec(html)![1]!;
    expect(JSON.parse(embedded)).toEqual(summary);
    expect(readFileSync(path.join(made.runDir, "report.svg"), "utf8")).toMatch(/^<svg /);
  });

  it("writes elsewhere with --out, linking trajectories back into the run", async () => {
    const paths = tempProject();
    paperRun(paths);
    const out = path.join(paths.root, "site");
    expect((await kgateInProcess(["--root", paths.root, "report", "paper", "--out", out])).code).toBe(0);
    const html = readFileSync(path.join(out, "report.html"), "utf8");
    expect(html).toContain('href="../runs/paper/trials/t01.with-A.frontier.0/trajectory.jsonl"');
    expect(existsSync(path.join(out, "summary.json"))).toBe(true);
  });

  it("keeps reporting when a record line is damaged, and says which line", async () => {
    const paths = tempProject();
    const made = paperRun(paths);
    appendFileSync(
      path.join(made.runDir, "trials.jsonl"),
      '{"recordVersion": 1, "runId": "paper"}\n{"torn": ',
    );
    const result = await kgateInProcess(["--root", paths.root, "report", "paper", "--json"]);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(
      /warning: runs\/paper\/trials\.jsonl: line 301: not a valid trial record: trialId: /,
    );
    expect(result.stderr).toMatch(
      /warning: runs\/paper\/trials\.jsonl: line 302: invalid JSON \(an incomplete last line: a write was cut off\)/,
    );
    expect(JSON.parse(result.stdout).totals.trials).toBe(300);
  });

  it("exits 2 on a missing run or a broken plan, naming the file and field", async () => {
    const paths = tempProject();
    const missing = await kgateInProcess(["--root", paths.root, "report", "nope"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe("kgate: no run directory runs/nope\n");
    const made = paperRun(paths);
    const planFile = path.join(made.runDir, "plan.json");
    const plan = JSON.parse(readFileSync(planFile, "utf8"));
    plan.n = "five";
    writeFileSync(planFile, JSON.stringify(plan));
    const broken = await kgateInProcess(["--root", paths.root, "report", "paper"]);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toBe("kgate: runs/paper/plan.json: n: expected number, got string\n");
  });
});
