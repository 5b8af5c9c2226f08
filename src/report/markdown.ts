// The Markdown report: Table 1 (task x cell: passes/runs, Wilson interval, decision, reasons) with
// aggregate rows, then failure attribution, tokens and cost per cell, and the rubric criteria per cell.
import {
  aggregateLabel,
  budgetTokens,
  cellText,
  decisionText,
  intervalNote,
  money,
  tallyText,
  tokens,
  usageLine,
} from "./format.ts";
import { markdownTable } from "./markdown-table.ts";
import { PASSK_NOTE, passKHead, passKRows, passKText, passKWidth } from "./passk.ts";
import { provenanceLines } from "./provenance.ts";
import { RUBRIC_NOTE, rubricRows, rubricTables } from "./rubric.ts";
import type { RunSummary } from "./schema.ts";

/** Table 1 alone: one row per task, then the aggregate rows. */
export function table1(s: RunSummary): string {
  const specs = s.specs.map((spec) => spec.name);
  const rows: string[][] = [];
  for (const task of s.tasks) {
    const columns = specs.map((spec) => {
      const cells = s.cells.filter((c) => c.task === task.id && c.spec === spec);
      if (cells.length === 0) return "—";
      if (cells.length === 1) return cellText(cells[0]!);
      return cells.map((c) => `${c.label}: ${cellText(c)}`).join("; ");
    });
    rows.push([task.id, task.gate, ...columns, decisionText(task), task.reasons.join("; ")]);
  }
  const d = s.totals.decisions;
  const decided = `${d.retain} retain, ${d.revise} revise, ${d.discard} discard${d.incomplete ? `, ${d.incomplete} incomplete` : ""}`;
  for (const scope of ["all", "retained"] as const) {
    const count = scope === "all" ? s.tasks.length : d.retain;
    const columns = specs.map((spec) => {
      const a = s.aggregates.find((x) => x.spec === spec && x.scope === scope);
      return a ? tallyText(a.passes, a.runs, a.interval) : "—";
    });
    rows.push([`**${aggregateLabel(scope, count)}**`, "", ...columns, scope === "all" ? decided : "", ""]);
  }
  const head = ["task", "gate", ...specs, "decision", "reasons"];
  return `${markdownTable(head, rows)}\n\n${intervalNote(s)}`;
}

/** pass@k and pass^k per cell and aggregate row, beside the tally and its Wilson interval; "" with no valid trial. */
export function passKMarkdown(s: RunSummary): string {
  const width = passKWidth(s);
  if (width === 0) return "";
  const rows = passKRows(s).map((r) => [
    r.aggregate ? `**${r.task}**` : r.task,
    r.cell,
    r.tally,
    r.measure,
    ...r.values.map(passKText),
  ]);
  return markdownTable(passKHead(width), rows);
}

function attributionTable(s: RunSummary): string {
  const head = [
    "task",
    "cell",
    "pass",
    "fail",
    "infra",
    "unverified",
    "default-convention",
    "perturbed",
    "format",
    "other",
    "tokens",
    "input",
    "output",
    "cache read",
    "cache write",
    "cost",
  ];
  const rows = s.cells.map((c) => {
    const a = c.attribution;
    const perturbed = Object.entries(a.perturbed)
      .map(([name, n]) => `${n} (${name})`)
      .join(", ");
    return [
      c.task,
      c.label,
      String(c.counts.pass),
      String(c.counts.fail),
      String(c.counts.infra),
      String(c.counts.unverified),
      String(a["default-convention"]),
      perturbed || "0",
      String(a.format),
      String(a.other + a.unattributed),
      tokens(budgetTokens(c.usage)),
      tokens(c.usage.inputTokens),
      tokens(c.usage.outputTokens),
      tokens(c.usage.cacheReadTokens),
      tokens(c.usage.cacheWriteTokens),
      money(c.usage),
    ];
  });
  return markdownTable(head, rows);
}

/** Which configuration ran in each column: model, harness and version, provider, digest. */
export function configurationsTable(s: RunSummary): string {
  const head = ["cell", "agent", "condition", "model", "harness", "provider", "digest"];
  const rows = s.configurations.map((c) => {
    const harness = c.harnessVersions.length > 0 ? `${c.harness} ${c.harnessVersions.join(", ")}` : c.harness;
    return [c.label, c.agent, c.condition, c.model ?? "—", harness, c.provider, c.digest];
  });
  return markdownTable(head, rows);
}

/** One table per rubric-scored task: criteria x cells, then the reward and mean-score rows. */
export function rubricMarkdown(s: RunSummary): string {
  return rubricTables(s)
    .map((t) => {
      const head = [`${t.task}: criterion`, "weight", ...t.columns.map((c) => c.cell)];
      return markdownTable(head, rubricRows(t));
    })
    .join("\n\n");
}

export function markdownReport(s: RunSummary): string {
  const u = s.totals.usage;
  const parts = [
    `# Calibration ${s.runId}`,
    "",
    ...(s.plumbing ? [`> **${s.plumbing.note}**`, ""] : []),
    ...s.rule.map((line) => `- ${line}`),
    `- ${s.totals.trials} trials: ${s.totals.pass} pass, ${s.totals.fail} fail, ${s.totals.infra} infrastructure errors, ` +
      `${s.totals.unverified} unverified; tokens as the token budget counts them: ${usageLine(u, s.totals.spent)}`,
    ...provenanceLines(s).map((line) => `- ${line}`),
    "",
    "## Configurations",
    "",
    configurationsTable(s),
    "",
    "## Pass rates and decisions",
    "",
    "Passes/valid runs (rate) [Wilson 95% interval, %].",
    "",
    table1(s),
  ];
  const passK = passKMarkdown(s);
  if (passK) parts.push("", "## pass@k and pass^k", "", PASSK_NOTE, "", passK);
  parts.push("", "## Failure attribution, tokens and cost", "", attributionTable(s));
  const rubric = rubricMarkdown(s);
  if (rubric) parts.push("", "## Rubric criteria", "", RUBRIC_NOTE, "", rubric);
  const notes = s.tasks.flatMap((t) => t.notes.map((n) => `${t.id}: ${n}`));
  if (notes.length + s.caveats.length + s.warnings.length > 0) {
    parts.push("", "## Notes", "", ...[...notes, ...s.caveats, ...s.warnings].map((w) => `- ${w}`));
  }
  return `${parts.join("\n")}\n`;
}
