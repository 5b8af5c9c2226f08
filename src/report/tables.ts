// Table 1 for papers and spreadsheets: CSV (one row per task, then the aggregate rows; per column
// the worded cell, its numbers and the configuration that ran it) and a LaTeX booktabs table whose
// caption names the configurations. Both carry exactly the numbers of the summary JSON, and the
// decision with its borderline flag.

import { spreadsheetCell } from "./csv.ts";
import { cellText, decisionText, tallyText } from "./format.ts";
import { passKValues, passKWidth } from "./passk.ts";
import { configurationText } from "./provenance.ts";
import type { CellSummary, Configuration, PassK, RunSummary } from "./schema.ts";

interface Column {
  text: string;
  /** Numbers only when the column holds one cell (a spec that expands to several has none). */
  passes: number | null;
  runs: number | null;
  lo: number | null;
  hi: number | null;
  /** pass@k and pass^k (k = 1..n) when the column holds one cell or an aggregate. */
  passK: readonly PassK[];
}

interface Table1Row {
  task: string;
  gate: string;
  columns: Column[];
  decision: string;
  reasons: string;
}

const EMPTY: Column = { text: "—", passes: null, runs: null, lo: null, hi: null, passK: [] };

function column(cells: CellSummary[]): Column {
  if (cells.length === 0) return EMPTY;
  if (cells.length > 1) return { ...EMPTY, text: cells.map((c) => `${c.label}: ${cellText(c)}`).join("; ") };
  const c = cells[0]!;
  return {
    text: cellText(c),
    passes: c.counts.pass,
    runs: c.counts.runs,
    lo: c.interval.lo,
    hi: c.interval.hi,
    passK: c.passK,
  };
}

/** Table 1 as rows: the tasks, then `all` and `retained`. */
export function table1Rows(s: RunSummary): Table1Row[] {
  const specs = s.specs.map((x) => x.name);
  const rows: Table1Row[] = s.tasks.map((t) => ({
    task: t.id,
    gate: t.gate,
    columns: specs.map((spec) => column(s.cells.filter((c) => c.task === t.id && c.spec === spec))),
    decision: decisionText(t),
    reasons: t.reasons.join("; "),
  }));
  const d = s.totals.decisions;
  for (const scope of ["all", "retained"] as const) {
    rows.push({
      task: `${scope} (${scope === "all" ? s.tasks.length : d.retain} tasks)`,
      gate: "",
      columns: specs.map((spec) => {
        const a = s.aggregates.find((x) => x.spec === spec && x.scope === scope);
        if (!a) return EMPTY;
        return {
          text: tallyText(a.passes, a.runs, a.interval),
          passes: a.passes,
          runs: a.runs,
          lo: a.interval.lo,
          hi: a.interval.hi,
          passK: a.passK,
        };
      }),
      decision:
        scope === "all"
          ? `${d.retain} retain, ${d.revise} revise, ${d.discard} discard${d.incomplete ? `, ${d.incomplete} incomplete` : ""}`
          : "",
      reasons: "",
    });
  }
  return rows;
}

/** The configuration behind a column, as three cells: model, harness (with its versions), digest. */
function configurationCells(c: Configuration | undefined): Array<string | null> {
  if (!c) return [null, null, null];
  const versions = c.harnessVersions.length > 0 ? ` ${c.harnessVersions.join("/")}` : "";
  return [c.model ?? "no model", `${c.harness}${versions}`, c.digest];
}

/**
 * Table 1 as CSV: per cell spec its text, passes, runs, Wilson bounds (0..1), pass@k and pass^k for
 * k = 1..n (empty past a cell's valid trials; an aggregate row's are the mean over its cells) and
 * the configuration that ran it (model, harness, digest: repeated on every row, so a pasted excerpt
 * still says what was run).
 */
export function table1Csv(s: RunSummary): string {
  const specs = s.specs.map((x) => x.name);
  const width = passKWidth(s);
  const ks = Array.from({ length: width }, (_, i) => i + 1);
  const head = [
    "task",
    "gate",
    ...specs.flatMap((spec) => [
      spec,
      `${spec} passes`,
      `${spec} runs`,
      `${spec} lo`,
      `${spec} hi`,
      ...ks.map((k) => `${spec} pass@${k}`),
      ...ks.map((k) => `${spec} pass^${k}`),
      `${spec} model`,
      `${spec} harness`,
      `${spec} digest`,
    ]),
    "decision",
    "reasons",
  ];
  const configurations = specs.map((spec) =>
    configurationCells(s.configurations.find((c) => c.label === spec)),
  );
  const lines = [head.map(spreadsheetCell).join(",")];
  for (const row of table1Rows(s)) {
    const columns = row.columns.flatMap((c, i) => [
      c.text,
      c.passes,
      c.runs,
      c.lo,
      c.hi,
      ...passKValues(c.passK, "pass@k", width),
      ...passKValues(c.passK, "pass^k", width),
      ...configurations[i]!,
    ]);
    lines.push([row.task, row.gate, ...columns, row.decision, row.reasons].map(spreadsheetCell).join(","));
  }
  return `${lines.join("\r\n")}\r\n`;
}

const LATEX_SPECIAL: Record<string, string> = {
  "\\": "\\textbackslash{}",
  "&": "\\&",
  "%": "\\%",
  $: "\\$",
  "#": "\\#",
  _: "\\_",
  "{": "\\{",
  "}": "\\}",
  "~": "\\textasciitilde{}",
  "^": "\\textasciicircum{}",
  "—": "---",
};

export function escapeLatex(text: string): string {
  return text.replace(/[\\&%$#_{}~^—]/g, (ch) => LATEX_SPECIAL[ch]!);
}

/** Table 1 as a LaTeX table (booktabs); the reasons stay in the other formats. */
export function table1Latex(s: RunSummary): string {
  const specs = s.specs.map((x) => x.name);
  const rows = table1Rows(s);
  const line = (cells: string[]) => `${cells.map(escapeLatex).join(" & ")} \\\\`;
  const caption = [
    `Calibration ${s.runId}: passes/valid runs (rate) [Wilson 95\\% interval, \\%].`,
    ...s.configurations.map((c) => `${escapeLatex(c.label)}: ${escapeLatex(configurationText(c))}.`),
  ].join(" ");
  const body = rows.map((r) => line([r.task, r.gate, ...r.columns.map((c) => c.text), r.decision]));
  const tasks = body.slice(0, s.tasks.length);
  const aggregates = body.slice(s.tasks.length);
  return [
    "% Needs \\usepackage{booktabs}. Written by kgate report.",
    "\\begin{table}[t]",
    "\\centering",
    "\\small",
    `\\begin{tabular}{ll${"l".repeat(specs.length)}l}`,
    "\\toprule",
    line(["task", "gate", ...specs, "decision"]),
    "\\midrule",
    ...tasks,
    "\\midrule",
    ...aggregates,
    "\\bottomrule",
    "\\end{tabular}",
    `\\caption{${caption}}`,
    `\\label{tab:kgate-${s.runId.replace(/[^A-Za-z0-9.:-]/g, "-")}}`,
    "\\end{table}",
    "",
  ].join("\n");
}
