// The report writers on a constructed run shaped like the paper's Table 1: the summary's numbers,
// the Markdown table with aggregate rows, and the SVG chart's bars and Wilson whiskers.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { projectPaths } from "../src/project.ts";
import { escapeXml, markdownReport, RunSummary, svgChart, table1 } from "../src/report/index.ts";
import { paperRun as makePaperRun, type PaperRun } from "./support/paper-run.ts";

const dir = mkdtempSync(path.join(tmpdir(), "kgate-report-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let made: PaperRun | undefined;
/** One constructed run for the whole file: every test only reads it. */
function paperRun(): PaperRun {
  made ??= makePaperRun(projectPaths(dir));
  return made;
}

describe("summary of a paper-shaped run", () => {
  it("is valid per its schema and counts what the records say", () => {
    const { summary } = paperRun();
    expect(() => RunSummary.parse(summary)).not.toThrow();
    const all = (spec: string) => summary.aggregates.find((a) => a.spec === spec && a.scope === "all")!;
    expect([all("frontier+A").passes, all("frontier+A").runs]).toEqual([51, 75]);
    expect([all("frontier-A").passes, all("mid+A").passes, all("control").passes]).toEqual([0, 17, 1]);
    expect(all("frontier+A").interval.lo).toBeCloseTo(0.567889, 5);
    // The paper's rule (point estimate): t01-t02 and t04-t13 meet every clause (t07-t13 at +A 3/5 and
    // t02-t09 at mid 2/5 by one trial, flagged), t03's control passed once (revise), t14-t15 0/5 at +A.
    expect(summary.totals.decisions).toEqual({ retain: 12, revise: 1, discard: 2, incomplete: 0 });
    expect(summary.totals).toMatchObject({ trials: 300, pass: 69, fail: 231, infra: 0 });
    const t14 = summary.cells.find((c) => c.task === "t14" && c.spec === "frontier-A")!;
    expect(t14.attribution).toMatchObject({ "default-convention": 4, format: 1 });
    const control = summary.cells.find((c) => c.task === "t01" && c.spec === "control")!;
    expect(control.attribution.perturbed).toEqual({ perturbed: 5 });
    expect(summary.totals.usage).toMatchObject({
      inputTokens: 300_000,
      outputTokens: 60_000,
      costUnknown: 0,
    });
    expect(summary.totals.usage.costUsd).toBeCloseTo(3, 9);
  });
});

describe("Markdown report", () => {
  it("has Table 1 with one row per task and the aggregate rows", () => {
    const { summary } = paperRun();
    const lines = table1(summary).split("\n");
    expect(lines[0]).toBe("| task | gate | frontier+A | frontier-A | mid+A | control | decision | reasons |");
    expect(lines).toHaveLength(2 + 15 + 2 + 2); // + a blank line and the interval note
    expect(lines[2]).toBe(
      "| t01 | convention | 5/5 (100%) [57, 100] | 0/5 (0%) [0, 43] | 1/5 (20%) [4, 62] | 0/5 (0%) [0, 43] | retain | " +
        "frontier+A passed 5/5 (100%): meets p(frontier+A) >= 0.6; frontier-A passed 0/5 (0%): meets p(frontier-A) = 0 " +
        "by the point estimate (p(frontier-A) < 0.451 at 95%, one-sided); " +
        "mid+A passed 1/5 (20%): meets p(mid+A) <= 0.4; control passed 0/5 (0%): meets p(control) = 0 by the point " +
        // 5/5 vs 0/5, one-sided Fisher exact: C(5,5) C(5,0) / C(10,5) = 1/252 = 0.00397.
        "estimate (p(control) < 0.451 at 95%, one-sided); frontier+A 5/5 vs control 0/5: one-sided Fisher exact " +
        "p = 0.00397 < 0.05, so success tracks " +
        "the artefact's content, not its presence |",
    );
    expect(lines[15]).toBe(
      "| t14 | convention | 0/5 (0%) [0, 43] | 0/5 (0%) [0, 43] | 0/5 (0%) [0, 43] | 0/5 (0%) [0, 43] | discard | " +
        "frontier+A passed 0/5 (0%): misses p(frontier+A) >= 0.6 |",
    );
    expect(lines[17]).toMatch(
      /^\| \*\*all \(15 tasks, pooled trials\)\*\* \| {2}\| 51\/75 \(68\.0%\) \[56\.8, 77\.5\] \| 0\/75 \(0\.0%\) \[0\.0, 4\.9\] \| 17\/75 \(22\.7%\) \[14\.7, 33\.3\] \| 1\/75 \(1\.3%\) \[0\.2, 7\.2\] \| 12 retain, 1 revise, 2 discard \|/,
    );
    // Retained: t01, t02, t04-t06 at 5/5 and t07-t13 at 3/5: 25 + 21 = 46 of 60.
    expect(lines[18]).toMatch(/^\| \*\*retained \(12 tasks, pooled trials\)\*\* \| {2}\| 46\/60 \(76\.7%\) /);
    expect(lines[3]).toContain("| retain (borderline: mid+A 2/5 meets p <= 0.4 by one trial) |");
    expect(lines[20]).toBe("Intervals: Wilson 95%. Aggregate rows pool trials across tasks.");
  });

  it("shows the rule, attribution, tokens and cost", () => {
    const { summary } = paperRun();
    const md = markdownReport(summary);
    expect(md).toContain(
      "- retain when p(frontier+A) >= 0.6 and p(frontier-A) = 0 and p(mid+A) <= 0.4; controls must fail like -A: p(control) = 0",
    );
    // 5 trials x (1,000 input + 200 output), no cache: the budget counts 6,000 tokens.
    expect(md).toContain(
      "| t14 | frontier-A | 0 | 5 | 0 | 0 | 4 | 0 | 1 | 0 | 6,000 | 5,000 | 1,000 | 0 | 0 | $0.05 |",
    );
    expect(md).toContain(
      "| t03 | control | 1 | 4 | 0 | 0 | 0 | 4 (perturbed) | 0 | 0 | 6,000 | 5,000 | 1,000 | 0 | 0 | $0.05 |",
    );
  });

  it("spells out infrastructure errors and missing trials beside the rate", () => {
    const { summary } = paperRun();
    const cell = summary.cells[0]!;
    const changed = {
      ...summary,
      cells: [{ ...cell, counts: { ...cell.counts, infra: 2, missing: 1 } }, ...summary.cells.slice(1)],
    };
    expect(table1(changed).split("\n")[2]).toMatch(
      /^\| t01 \| convention \| 5\/5 \(100%\) \[57, 100\] \+2 infra, 1 missing \|/,
    );
  });
});

describe("SVG chart", () => {
  it("draws one bar per task and cell plus the aggregate group, with Wilson whiskers", () => {
    const { summary } = paperRun();
    const svg = svgChart(summary);
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    const bars = [
      ...svg.matchAll(
        /<g class="bar" data-task="([^"]+)" data-cell="([^"]+)" data-passes="(\d+)" data-runs="(\d+)"/g,
      ),
    ];
    expect(bars).toHaveLength(15 * 4 + 4);
    expect(bars.at(-4)!.slice(1)).toEqual(["all tasks", "frontier+A", "51", "75"]);
    // Plot: top at y = 40, 220 px for 100%.
    const t01 = /data-task="t01" data-cell="frontier-A"[^>]*>.*?<\/g>/s.exec(svg)![0];
    expect(t01).toContain('height="0"');
    expect(t01).toMatch(/class="whisker" x1="[\d.]+" x2="[\d.]+" y1="164.41" y2="260"/);
    const agg = /data-task="all tasks" data-cell="frontier\+A"[^>]*>.*?<\/g>/s.exec(svg)![0];
    expect(agg).toContain(`y="${Math.round((40 + (1 - 51 / 75) * 220) * 100) / 100}"`);
    expect(agg).toContain("<title>all tasks · frontier+A: 51/75 = 68.0% [56.8%, 77.5%]</title>");
  });

  it("escapes text", () => {
    expect(escapeXml(`<a href="x">&'`)).toBe("&lt;a href=&quot;x&quot;&gt;&amp;&#39;");
  });
});
