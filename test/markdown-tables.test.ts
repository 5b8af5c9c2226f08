// Every Markdown table kgate writes, parsed with a real Markdown parser (marked, GitHub-flavoured):
// each is recognised as a table, every row has as many cells as the head, and a cell holding `|`, `\`,
// a line break or a tag comes back as its own text (issue 30, item 6).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { marked, type Token, type Tokens } from "marked";
import { afterAll, describe, expect, it } from "vitest";
import type { RunMonitoring } from "../src/monitor/index.ts";
import { runMonitoringMarkdown } from "../src/monitor/index.ts";
import { projectPaths } from "../src/project.ts";
import { markdownCell, markdownReport, markdownTable } from "../src/report/index.ts";
import { markdownTriage, type TriageSummary } from "../src/triage/index.ts";
import { kgate } from "./support/cli.ts";
import { paperRun } from "./support/paper-run.ts";

const PUBLISHED = path.resolve(import.meta.dirname, "fixtures/mmb-published/csvs");
const HOSTILE = "a | b \\| c\\ <b>bold</b>\nnext line";
/** HOSTILE as it must be shown: the line break as a space, the tag as text. */
const HOSTILE_SHOWN = "a | b \\| c\\ <b>bold</b> next line";

/** The tables marked finds in a Markdown text. */
function tablesOf(markdown: string): Tokens.Table[] {
  return marked.lexer(markdown).filter((t): t is Tokens.Table => t.type === "table");
}

/** Lines that look like a table's delimiter row (`|---|---|`): one per table written. */
const delimiterRows = (markdown: string) => markdown.split("\n").filter((l) => /^\|(-{3}\|)+$/.test(l));

/** Whether any inline token (at any depth) is raw HTML, which a renderer would not show as text. */
function hasHtml(tokens: readonly Token[]): boolean {
  return tokens.some(
    (t) => t.type === "html" || ("tokens" in t && Array.isArray(t.tokens) && hasHtml(t.tokens as Token[])),
  );
}

/** A cell's text as a renderer shows it (inline Markdown rendered, entities decoded); no raw HTML in it. */
function shown(cell: Tokens.TableCell): string {
  expect(hasHtml(cell.tokens)).toBe(false);
  return (marked.parseInline(cell.text) as string)
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, "&");
}

/** Every table written is parsed as one, and each of its rows has exactly the head's cell count. */
function expectWellFormed(markdown: string): Tokens.Table[] {
  const tables = tablesOf(markdown);
  expect(tables).toHaveLength(delimiterRows(markdown).length);
  for (const t of tables) {
    const columns = t.align.length;
    expect(t.header).toHaveLength(columns);
    for (const row of t.rows) expect(row).toHaveLength(columns);
  }
  return tables;
}

const dir = mkdtempSync(path.join(tmpdir(), "kgate-md-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the one table writer", () => {
  it("keeps a hostile cell in its column and gives its text back", () => {
    const md = markdownTable(["name", HOSTILE], [[HOSTILE, "x"]]);
    const [table] = expectWellFormed(md);
    expect(table!.header).toHaveLength(2);
    expect(shown(table!.header[1]!)).toBe(HOSTILE_SHOWN);
    expect(shown(table!.rows[0]![0]!)).toBe(HOSTILE_SHOWN);
    expect(shown(table!.rows[0]![1]!)).toBe("x");
  });

  it("leaves a `<` that cannot open a tag as it is, for a readable source", () => {
    expect(markdownCell("p < 0.451 at 95%")).toBe("p < 0.451 at 95%");
    expect(markdownCell("<b> </i> <!-- <?x")).toBe("\\<b> \\</i> \\<!-- \\<?x");
  });
});

describe("kgate monitor analyse (Markdown) on the battery's published data", () => {
  const result = kgate(["monitor", "analyse", PUBLISHED, "--resamples", "50"]);

  it("writes the per-track table with 10 header cells for its 10 columns", () => {
    expect(result.code).toBe(0);
    const tables = expectWellFormed(result.stdout);
    // Per model and track; per model; leaderboard; across models.
    expect(tables).toHaveLength(4);
    const perTrack = tables[0]!;
    expect(perTrack.header.map(shown)).toEqual([
      "model",
      "track",
      "accuracy",
      "KEEP | correct %",
      "KEEP | incorrect %",
      "delta (pp)",
      "95% interval",
      "n correct",
      "n incorrect",
      "contradiction",
    ]);
    expect(perTrack.rows).toHaveLength(120); // 20 models x 6 tracks
  });
});

describe("the other writers", () => {
  it("the calibration report: a `|`, a line break and a tag in a reason stay in their cell", () => {
    const { summary } = paperRun(projectPaths(dir));
    const hostile = structuredClone(summary);
    hostile.tasks[0]!.reasons = [HOSTILE];
    const tables = expectWellFormed(markdownReport(hostile));
    // Configurations, Table 1, pass@k and pass^k, attribution.
    expect(tables).toHaveLength(4);
    const table1 = tables[1]!;
    const reasons = table1.header.length - 1;
    expect(shown(table1.rows[0]![reasons]!)).toBe(HOSTILE_SHOWN);
  });

  it("a run's monitoring tables: an agent and a model name with a `|`, a line break and a tag", () => {
    const summary = {
      n: 2,
      nCorrect: 1,
      nIncorrect: 1,
      accuracy: 0.5,
      kcRate: 100,
      kiRate: 0,
      withdrawDelta: 100,
      keepRate: 50,
      L: 0,
      K: 0,
      Fp: 0,
      TRIN: 0.5,
      contradiction: 0,
      nUnparsedKeep: 0,
    };
    const m: RunMonitoring = {
      cells: [{ agent: HOSTILE, task: "t", condition: "-A", summary, interval: null }],
      requestSpecPerTask: [],
      configurations: [
        {
          agent: HOSTILE,
          digest: "0123456789abcdef",
          model: HOSTILE,
          summary,
          interval: null,
          profile: "C",
          withdrawRateMinusA: null,
          prospective: null,
          probeTokens: 10,
          probeCalls: 2,
        },
      ],
      dissociation: { n: 0, pearson: null, spearman: null },
      splitHalf: { n: 0, r: null, corrected: null },
      skipped: 0,
      errors: { trials: {}, probes: {} },
    };
    const tables = expectWellFormed(runMonitoringMarkdown(m));
    expect(tables).toHaveLength(2);
    expect(shown(tables[0]!.rows[0]![0]!)).toBe(HOSTILE_SHOWN);
    expect(shown(tables[1]!.rows[0]![1]!)).toBe(HOSTILE_SHOWN);
  });

  it("the triage report: a framing with a `|`, a line break and a tag", () => {
    const s: TriageSummary = {
      run: "r",
      pool: { name: "p", file: "items/p.jsonl", digest: "0".repeat(64) },
      configuration: { name: "c", digest: "1".repeat(64) },
      model: "m",
      kgateVersion: "0",
      phase2: "simulated",
      resolve: false,
      phase0: { units: 1, correct: 1, capped: 0, totalCost: 1, costKind: null },
      errors: {},
      main: [{ alpha: 0.5, regime: "U", framing: HOSTILE, plans: 1, eta: 1, etaUndefined: 0, regret: 0 }],
      injection: [{ ratio: 0.25, framing: HOSTILE, plans: 1, detection: 1, waste: 0 }],
      compliance: {
        plans: 1,
        unreadable: 0,
        compliant: 1,
        share: 1,
        liveRan: 0,
        liveWithin: 0,
        liveURan: 0,
        liveUTruncated: 0,
        resolveRan: 0,
        resolveWithin: 0,
        resolveShare: null,
      },
      plans: [],
    };
    const tables = expectWellFormed(markdownTriage(s));
    expect(tables).toHaveLength(2);
    expect(shown(tables[0]!.rows[0]![2]!)).toBe(HOSTILE_SHOWN);
    expect(shown(tables[1]!.rows[0]![1]!)).toBe(HOSTILE_SHOWN);
  });
});
