// `kgate report` names what ran and counts tokens as the budget does: the configurations and
// provenance in every format match the plan and the records; token totals (with cache reads and
// writes) are the run's over resumed sessions; Table 1 as CSV and LaTeX carries the JSON's numbers
// and decisions (borderline flag included), the CSV each column's configuration, formula-safe.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { BatteryAnalysis } from "../src/monitor/battery.ts";
import { batteryCsv } from "../src/monitor/battery-table.ts";
import { leaderboardCsv } from "../src/monitor/leaderboard.ts";
import type { TrialRecord } from "../src/record/index.ts";
import { RunSummary, spreadsheetCell, table1Csv } from "../src/report/index.ts";
import { parseCsv } from "../src/verify/index.ts";
import { kgate } from "./support/cli.ts";
import { kgateInProcess } from "./support/cli-in-process.ts";
import { type PaperRun, paperRun } from "./support/paper-run.ts";
import { tempProject } from "./support/project.ts";

const PROVENANCE = {
  kgateVersion: "0.1.0",
  sandboxProvider: "docker",
  host: "local",
  sandboxImage: "sha256:5a1e",
  sandboxBase: "debian:bookworm-slim",
  harnessVersion: "scripted 2.0",
  diskCap: null,
};

/**
 * The paper-shaped run (300 records, 1,000 input + 200 output tokens each), rewritten as two
 * sessions: the first 150 records, then a resumed session appending the other 150. The 5 records
 * of t01 frontier+A also read 300 and wrote 100 cache tokens each; frontier's records carry
 * provenance, the others (mid, made "before provenance") do not.
 */
function sharedRun(): { paths: ReturnType<typeof tempProject>; made: PaperRun } {
  const paths = tempProject("file");
  const made = paperRun(paths);
  const records: TrialRecord[] = made.records.map((r) => ({
    ...r,
    usage:
      r.task.id === "t01" && r.condition === "+A" && r.agent.name === "frontier"
        ? { ...r.usage, cacheReadTokens: 300, cacheWriteTokens: 100 }
        : r.usage,
    provenance: r.agent.name === "frontier" ? PROVENANCE : null,
  }));
  const line = (r: TrialRecord) => `${JSON.stringify(r)}\n`;
  const file = path.join(made.runDir, "trials.jsonl");
  writeFileSync(file, records.slice(0, 150).map(line).join(""));
  writeFileSync(file, readFileSync(file, "utf8") + records.slice(150).map(line).join(""));
  return { paths, made };
}

describe("kgate report: configurations, provenance and tokens", () => {
  const { paths, made } = sharedRun();
  const json = kgate(["--root", paths.root, "report", "paper", "--json"]);
  const summary = RunSummary.parse(JSON.parse(json.stdout));

  it("names the configuration behind every column, as the plan and records say", async () => {
    expect(json.code).toBe(0);
    // Default cells: frontier+A, frontier-A, mid+A, control (frontier on the perturbed variant);
    // the fixture's agents: frontier on anthropic, mid on openai, harness "scripted".
    expect(summary.configurations).toEqual([
      {
        label: "frontier+A",
        condition: "+A",
        agent: "frontier",
        model: "frontier-model",
        harness: "scripted",
        harnessVersions: ["scripted 2.0"],
        provider: "anthropic",
        digest: "digest-of-frontier",
      },
      {
        label: "frontier-A",
        condition: "-A",
        agent: "frontier",
        model: "frontier-model",
        harness: "scripted",
        harnessVersions: ["scripted 2.0"],
        provider: "anthropic",
        digest: "digest-of-frontier",
      },
      {
        label: "mid+A",
        condition: "+A",
        agent: "mid",
        model: "mid-model",
        harness: "scripted",
        harnessVersions: [],
        provider: "openai",
        digest: "digest-of-mid",
      },
      {
        label: "control",
        condition: "perturbed",
        agent: "frontier",
        model: "frontier-model",
        harness: "scripted",
        harnessVersions: ["scripted 2.0"],
        provider: "anthropic",
        digest: "digest-of-frontier",
      },
    ]);
    // 15 tasks x 5 trials of mid+A carry no provenance: 75 records.
    expect(summary.provenance).toEqual({
      reportKgateVersion: JSON.parse(readFileSync("package.json", "utf8")).version,
      kgateVersions: ["0.1.0"],
      sandboxImages: ["sha256:5a1e"],
      sandboxBases: ["debian:bookworm-slim"],
      recordsWithout: 75,
    });
    const md = (await kgateInProcess(["--root", paths.root, "report", "paper"])).stdout;
    expect(md).toContain("| mid+A | mid | +A | mid-model | scripted | openai | digest-of-mid |");
    expect(md).toContain(
      "| frontier+A | frontier | +A | frontier-model | scripted scripted 2.0 | anthropic | digest-of-frontier |",
    );
    expect(md).toContain("(75 record(s) carry no provenance)");
    expect(md).toContain("- sandbox image sha256:5a1e; base debian:bookworm-slim");
    const html = readFileSync(path.join(made.runDir, "report.html"), "utf8");
    expect(html).toContain('<tr data-cell="mid+A"><td>mid+A</td><td>mid</td><td>+A</td><td>mid-model</td>');
    const svg = readFileSync(path.join(made.runDir, "report.svg"), "utf8");
    expect(svg).toContain("mid+A · mid-model via scripted (openai), digest digest-of-mi · rule &lt;= 0.4");
    const tex = readFileSync(path.join(made.runDir, "table1.tex"), "utf8");
    expect(tex).toContain("mid+A: mid-model via scripted (openai), digest digest-of-mi.");
  });

  it("counts tokens as the budget does, over both sessions, with the cache beside", async () => {
    // 300 records x (1,000 + 200) = 360,000, plus 5 x (300 + 100) cache tokens = 2,000.
    expect(summary.totals.usage).toMatchObject({
      inputTokens: 300_000,
      outputTokens: 60_000,
      cacheReadTokens: 1_500,
      cacheWriteTokens: 500,
    });
    const md = (await kgateInProcess(["--root", paths.root, "report", "paper"])).stdout;
    expect(md).toContain("362,000 tokens (300,000 in · 60,000 out · 1,500 cache read · 500 cache write)");
    // t01 frontier+A: 5 x (1,000 + 200 + 300 + 100) = 8,000 tokens.
    expect(md).toMatch(
      /\| t01 \| frontier\+A \| 5 \| 0 \|[^\n]*\| 8,000 \| 5,000 \| 1,000 \| 1,500 \| 500 \|/,
    );
    const html = readFileSync(path.join(made.runDir, "report.html"), "utf8");
    // Trial numbers are 0-based as in the ids: t01.with-A.frontier.4 is # 4, 1,600 tokens.
    expect(html).toMatch(
      /data-trial="t01\.with-A\.frontier\.4"[^\n]*<td class="num">4<\/td>[^\n]*<td class="num">1,600<\/td><td class="num">1,000 \/ 200 \/ 300 \/ 100<\/td>/,
    );
  });

  /** The decision as Table 1 must show it: with the borderline flag when a clause is met by one trial. */
  const flagged = (task: RunSummary["tasks"][number]) =>
    task.borderline.length > 0
      ? `${task.decision} (borderline: ${task.borderline.join("; ")})`
      : task.decision;

  it("writes Table 1 as CSV whose numbers, decisions and configurations are the JSON's", async () => {
    const result = await kgateInProcess(["--root", paths.root, "report", "paper", "--format", "csv"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(readFileSync(path.join(made.runDir, "table1.csv"), "utf8"));
    const parsed = parseCsv(result.stdout);
    if (!parsed.ok) throw new Error(parsed.reason);
    const { header, records } = parsed.csv;
    // n = 5: pass@1..pass@5 and pass^1..pass^5 beside the Wilson bounds, then the configuration.
    expect(header.slice(0, 20)).toEqual([
      "task",
      "gate",
      "frontier+A",
      "frontier+A passes",
      "frontier+A runs",
      "frontier+A lo",
      "frontier+A hi",
      ...[1, 2, 3, 4, 5].map((k) => `frontier+A pass@${k}`),
      ...[1, 2, 3, 4, 5].map((k) => `frontier+A pass^${k}`),
      "frontier+A model",
      "frontier+A harness",
      "frontier+A digest",
    ]);
    const block = 8 + 2 * 5;
    expect(records).toHaveLength(15 + 2);
    for (const row of records.slice(0, 15)) {
      const task = summary.tasks.find((t) => t.id === row[0])!;
      expect(row.at(-2)).toBe(flagged(task));
      expect(row.at(-1)).toBe(task.reasons.join("; "));
      summary.specs.forEach((spec, i) => {
        const cell = summary.cells.find((c) => c.task === task.id && c.spec === spec.name)!;
        const at = 2 + i * block;
        expect(row.slice(at + 1, at + 5).map(Number)).toEqual([
          cell.counts.pass,
          cell.counts.runs,
          cell.interval.lo,
          cell.interval.hi,
        ]);
        expect(row.slice(at + 5, at + 10).map(Number)).toEqual(cell.passK.map((p) => p.passAt));
        expect(row.slice(at + 10, at + 15).map(Number)).toEqual(cell.passK.map((p) => p.passHat));
      });
    }
    // t07: frontier+A PPPDD = 3/5 = 0.6 meets ">= 0.6" by one trial, so its decision is flagged.
    const t07 = records.find((r) => r[0] === "t07")!;
    expect(t07.at(-2)).toMatch(/^retain \(borderline: .*frontier\+A 3\/5/);
    // Its frontier+A 3/5: pass@2 = 1 - C(2,2)/C(5,2) = 1 - 1/10 = 0.9; pass^2 = C(3,2)/C(5,2) = 3/10.
    expect(Number(t07[2 + 6])).toBeCloseTo(0.9, 12);
    expect(Number(t07[2 + 11])).toBeCloseTo(0.3, 12);
    // Every row names the configuration of each column: mid+A is mid-model via scripted, digest-of-mid
    // (mid's records carry no provenance, so no harness version).
    const mid = header.indexOf("mid+A");
    for (const row of records) {
      expect(row.slice(mid + 15, mid + 18)).toEqual(["mid-model", "scripted", "digest-of-mid"]);
      expect(row.slice(2 + 15, 2 + 18)).toEqual([
        "frontier-model",
        "scripted scripted 2.0",
        "digest-of-frontier",
      ]);
    }
    // The paper's aggregate: frontier+A 51/75 (68.0%).
    expect(records[15]!.slice(0, 5)).toEqual([
      "all (15 tasks)",
      "",
      "51/75 (68.0%) [56.8, 77.5]",
      "51",
      "75",
    ]);
    // Its pass@1 is the mean of the 15 cells' c/5: (sum of c) / 75 = 51/75 = 0.68, as pooled.
    expect(Number(records[15]![2 + 5])).toBeCloseTo(0.68, 12);
  });

  it("writes a text cell that starts like a formula as text, numbers as numbers", async () => {
    // =, +, -, @ open a formula in a spreadsheet; the cell gets a leading apostrophe (then quoting).
    expect(['=HYPERLINK("x")', "+1+2", "-cmd", "@SUM(A1)", "\tx"].map(spreadsheetCell)).toEqual([
      `"'=HYPERLINK(""x"")"`,
      "'+1+2",
      "'-cmd",
      "'@SUM(A1)",
      "'\tx",
    ]);
    expect([-3.5, "-3.50", "+0.25", "1e-4", "plain", null].map(spreadsheetCell)).toEqual([
      "-3.5",
      "-3.50",
      "+0.25",
      "1e-4",
      "plain",
      "",
    ]);
    const hostile = {
      ...summary,
      configurations: summary.configurations.map((c) => ({ ...c, model: '=WEBSERVICE("http://x")' })),
    };
    const parsed = parseCsv(table1Csv(hostile));
    if (!parsed.ok) throw new Error(parsed.reason);
    const model = parsed.csv.header.indexOf("frontier+A model");
    expect(parsed.csv.records[0]![model]).toBe(`'=WEBSERVICE("http://x")`);
  });

  it("writes Table 1 as LaTeX whose rows are the JSON's", async () => {
    const result = await kgateInProcess(["--root", paths.root, "report", "paper", "--format", "latex"]);
    expect(result.code).toBe(0);
    const tex = result.stdout;
    // task, gate, four cells, decision: seven columns.
    expect(tex).toContain("\\begin{tabular}{lllllll}");
    expect(tex).toContain("task & gate & frontier+A & frontier-A & mid+A & control & decision \\\\");
    const rows = tex.split("\n").filter((l) => /^t\d\d & /.test(l));
    expect(rows).toHaveLength(15);
    for (const row of rows) {
      const cells = row.replace(/ \\\\$/, "").split(" & ");
      const task = summary.tasks.find((t) => t.id === cells[0])!;
      expect(cells.at(-1)).toBe(flagged(task).replaceAll("%", "\\%"));
      summary.specs.forEach((spec, i) => {
        const cell = summary.cells.find((c) => c.task === task.id && c.spec === spec.name)!;
        // "5/5 (100\%) [57, 100]": passes/runs first.
        expect(cells[2 + i]!.split(" ")[0]).toBe(`${cell.counts.pass}/${cell.counts.runs}`);
        expect(cells[2 + i]).toMatch(/^\d+\/\d+ \(\d+\\%\) \[\d+, \d+\]$/);
      });
    }
    expect(tex).toContain("all (15 tasks) &  & 51/75 (68.0\\%) [56.8, 77.5] & 0/75 (0.0\\%) [0.0, 4.9]");
  });

  it("refuses an unknown --format with exit 2", async () => {
    const result = await kgateInProcess(["--root", paths.root, "report", "paper", "--format", "docx"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('kgate: --format: expected one of md, json, csv, latex, got "docx"\n');
  });
});

describe("the monitoring battery's CSV", () => {
  it("writes a model name that starts like a formula as text, a negative delta as a number", async () => {
    const summary = { accuracy: 0.5, kcRate: 60, kiRate: 70, withdrawDelta: -10, nCorrect: 5, nIncorrect: 5 };
    const analysis = { tracks: [{ model: "@SUM(1+1)", track: "T2", summary }] } as unknown as BatteryAnalysis;
    // accuracy 0.5 at 4 places, rates at 2, delta -10 at 2 (a number: no apostrophe).
    expect(batteryCsv(analysis).split("\n")[1]).toBe("'@SUM(1+1),T2,0.5000,60.00,70.00,-10.00,5,5");
  });

  it("writes a leaderboard model name that starts like a formula as text, a negative delta as a number", async () => {
    const row = {
      model: "=1+1",
      accuracyRank: 1,
      metacognitionRank: 2,
      meanDelta: -1.25,
      meanAccuracy: 0.5,
      profile: "unclassified" as const,
    };
    // delta -1.25 rounded to 1 decimal as Python prints it: -1.2 (half to even); accuracy 0.5 at 3: 0.5.
    expect(leaderboardCsv([row]).split("\n")[1]).toBe("'=1+1,1,-1.2,2,0.5,Unclassified");
  });
});
