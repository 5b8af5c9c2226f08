// The report as one self-contained HTML page: Table 1, the chart, attribution / tokens / cost per
// cell, and one row per trial linking to its trajectory. No script runs and nothing is fetched:
// a Content-Security-Policy forbids it; the summary JSON is embedded as an inert data block.
import {
  aggregateLabel,
  budgetTokens,
  cellText,
  decisionText,
  interval,
  intervalNote,
  money,
  percent,
  tallyText,
  tokens,
  usageLine,
} from "./format.ts";
import { PASSK_NOTE, passKHead, passKRows, passKText, passKWidth } from "./passk.ts";
import { provenanceLines } from "./provenance.ts";
import { RUBRIC_NOTE, rubricHtml, rubricTables } from "./rubric.ts";
import type { CellSummary, RunSummary } from "./schema.ts";
import { escapeXml as esc, mustFail, svgChart } from "./svg.ts";

export interface HtmlOptions {
  /** Path from the page's folder to the run directory, for trajectory links ("" when beside it). */
  runDirHref?: string;
}

const STYLE = `
body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1200px;padding:0 16px;color:#1d1d1f}
h1{font-size:22px}h2{font-size:17px;margin-top:28px}
table{border-collapse:collapse;margin:8px 0;font-size:13px}
th,td{border:1px solid #d5d5d8;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f4f4f6}td.num{text-align:right;font-variant-numeric:tabular-nums}
tr.aggregate td{font-weight:600;background:#fafafa}
.retain{color:#1f7a1f;font-weight:600}.revise{color:#9a6700;font-weight:600}
.discard{color:#b42318;font-weight:600}.incomplete{color:#555;font-weight:600}
.pass{color:#1f7a1f}.fail{color:#b42318}.infra,.unverified{color:#9a6700}
tr.superseded{opacity:.55}ul.reasons{margin:0;padding-left:16px}
.meta{color:#555}.chart{overflow-x:auto}
td.tally,td.tally div,td.num{white-space:nowrap}.pass.unwanted{color:#b42318;font-weight:600}
code{font-size:12px}`;

function cellTd(c: CellSummary): string {
  return (
    `<td data-cell="${esc(c.label)}" data-passes="${c.counts.pass}" data-runs="${c.counts.runs}"` +
    ` data-infra="${c.counts.infra}" data-lo="${c.interval.lo}" data-hi="${c.interval.hi}" class="tally">${esc(cellText(c))}</td>`
  );
}

function table1(s: RunSummary): string {
  const specs = s.specs.map((x) => x.name);
  const head = ["task", "gate", ...specs, "decision", "reasons"].map((h) => `<th>${esc(h)}</th>`).join("");
  const rows = s.tasks.map((t) => {
    const columns = specs.map((spec) => {
      const cells = s.cells.filter((c) => c.task === t.id && c.spec === spec);
      if (cells.length === 0) return `<td data-spec="${esc(spec)}">—</td>`;
      if (cells.length === 1) return cellTd(cells[0]!).replace("<td ", `<td data-spec="${esc(spec)}" `);
      return `<td data-spec="${esc(spec)}" class="tally">${cells.map((c) => `<div>${esc(c.label)}: ${esc(cellText(c))}</div>`).join("")}</td>`;
    });
    const reasons = `<ul class="reasons">${t.reasons.map((r) => `<li>${esc(r)}</li>`).join("")}</ul>`;
    return (
      `<tr data-task="${esc(t.id)}"><td>${esc(t.id)}</td><td>${t.gate}</td>${columns.join("")}` +
      `<td class="decision ${t.decision}">${esc(decisionText(t))}</td><td>${reasons}</td></tr>`
    );
  });
  const d = s.totals.decisions;
  for (const scope of ["all", "retained"] as const) {
    const count = scope === "all" ? s.tasks.length : d.retain;
    const columns = specs.map((spec) => {
      const a = s.aggregates.find((x) => x.spec === spec && x.scope === scope);
      if (!a) return "<td>—</td>";
      return `<td data-spec="${esc(spec)}" data-passes="${a.passes}" data-runs="${a.runs}" class="tally">${esc(tallyText(a.passes, a.runs, a.interval))}</td>`;
    });
    const decided =
      scope === "all"
        ? `${d.retain} retain, ${d.revise} revise, ${d.discard} discard${d.incomplete ? `, ${d.incomplete} incomplete` : ""}`
        : "";
    rows.push(
      `<tr class="aggregate" data-scope="${scope}"><td>${esc(aggregateLabel(scope, count))}</td><td></td>${columns.join("")}<td>${decided}</td><td></td></tr>`,
    );
  }
  return `<table id="table1"><thead><tr>${head}</tr></thead><tbody>${rows.join("\n")}</tbody></table>\n<p class="note">${esc(intervalNote(s))}</p>`;
}

/** pass@k and pass^k per cell and aggregate row; each value carries data-k, data-measure and its exact value. */
function passKTable(s: RunSummary): string {
  const width = passKWidth(s);
  if (width === 0) return "";
  const head = passKHead(width)
    .map((h) => `<th>${esc(h)}</th>`)
    .join("");
  const rows = passKRows(s).map((r) => {
    const values = r.values
      .map(
        (v, i) =>
          `<td class="num" data-k="${i + 1}"${v === null ? "" : ` data-value="${v}"`}>${passKText(v)}</td>`,
      )
      .join("");
    return (
      `<tr${r.aggregate ? ' class="aggregate"' : ""} data-task="${esc(r.task)}" data-cell="${esc(r.cell)}" data-measure="${r.measure}">` +
      `<td>${esc(r.task)}</td><td>${esc(r.cell)}</td><td class="tally">${esc(r.tally)}</td><td>${r.measure}</td>${values}</tr>`
    );
  });
  return (
    `<h2>pass@k and pass^k</h2>\n<p class="meta">${esc(PASSK_NOTE)}</p>\n` +
    `<table id="passk"><thead><tr>${head}</tr></thead><tbody>${rows.join("\n")}</tbody></table>`
  );
}

function cellsTable(s: RunSummary): string {
  const head = [
    "task",
    "cell",
    "pass",
    "fail",
    "infra",
    "unverified",
    "rate",
    "Wilson 95%",
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
    const perturbed =
      Object.entries(a.perturbed)
        .map(([name, n]) => `${n} (${name})`)
        .join(", ") || "0";
    const num = (v: string | number) => `<td class="num">${esc(String(v))}</td>`;
    return (
      `<tr data-key="${esc(c.key)}"><td>${esc(c.task)}</td><td>${esc(c.label)}</td>${num(c.counts.pass)}${num(c.counts.fail)}` +
      `${num(c.counts.infra)}${num(c.counts.unverified)}${num(c.rate === null ? "n/a" : percent(c.rate, c.counts.runs))}` +
      `${num(interval(c.interval, c.counts.runs))}${num(a["default-convention"])}${num(perturbed)}${num(a.format)}` +
      `${num(a.other + a.unattributed)}${num(tokens(budgetTokens(c.usage)))}${num(tokens(c.usage.inputTokens))}` +
      `${num(tokens(c.usage.outputTokens))}${num(tokens(c.usage.cacheReadTokens))}${num(tokens(c.usage.cacheWriteTokens))}${num(money(c.usage))}</tr>`
    );
  });
  return `<table id="cells"><thead><tr>${head.map((h) => `<th>${h}</th>`).join("")}</tr></thead><tbody>${rows.join("\n")}</tbody></table>`;
}

function trialsTable(s: RunSummary, base: string): string {
  const head = [
    "trial",
    "task",
    "cell",
    "#",
    "attempt",
    "outcome",
    "score",
    "attribution",
    "stop",
    "error",
    "tokens",
    "in / out / cache read / cache write",
    "cost",
    "time",
    "trajectory",
  ];
  const unwanted = new Set(s.specs.filter(mustFail).map((x) => x.name));
  const rows = s.trials.map((t) => {
    const outcomeClass = t.outcome === "pass" && unwanted.has(t.spec) ? "pass unwanted" : t.outcome;
    const link = t.trajectory ? `<a href="${esc(base + t.trajectory)}">trajectory</a>` : "—";
    const error = t.error ? `${t.error.owner}: ${t.error.kind}: ${t.error.message}` : "";
    return (
      `<tr class="${t.superseded ? "superseded" : ""}" data-trial="${esc(t.trialId)}" data-outcome="${t.outcome}">` +
      `<td>${esc(t.trialId)}</td><td>${esc(t.task)}</td><td>${esc(t.cell)}</td><td class="num">${t.index}</td>` +
      `<td class="num">${t.attempt}${t.superseded ? " (retried)" : ""}</td><td class="${outcomeClass}">${t.outcome}</td>` +
      `<td class="num">${t.score === null ? "—" : t.score.toFixed(2)}</td>` +
      `<td>${esc(t.attribution ?? "")}</td><td>${esc(t.stopReason)}</td><td>${esc(error)}</td>` +
      `<td class="num">${tokens(budgetTokens(t))}</td>` +
      `<td class="num">${tokens(t.inputTokens)} / ${tokens(t.outputTokens)} / ${tokens(t.cacheReadTokens)} / ${tokens(t.cacheWriteTokens)}</td>` +
      `<td class="num">${t.costUsd === null ? "n/a" : `$${t.costUsd.toFixed(3)}`}</td>` +
      `<td class="num">${(t.durationMs / 1000).toFixed(1)}s</td><td>${link}</td></tr>`
    );
  });
  return `<table id="trials"><thead><tr>${head.map((h) => `<th>${h}</th>`).join("")}</tr></thead><tbody>${rows.join("\n")}</tbody></table>`;
}

function configurationsTable(s: RunSummary): string {
  const head = ["cell", "agent", "condition", "model", "harness", "provider", "digest"];
  const rows = s.configurations.map((c) => {
    const harness = c.harnessVersions.length > 0 ? `${c.harness} ${c.harnessVersions.join(", ")}` : c.harness;
    return (
      `<tr data-cell="${esc(c.label)}"><td>${esc(c.label)}</td><td>${esc(c.agent)}</td><td>${esc(c.condition)}</td>` +
      `<td>${esc(c.model ?? "—")}</td><td>${esc(harness)}</td><td>${esc(c.provider)}</td><td><code>${esc(c.digest)}</code></td></tr>`
    );
  });
  return `<table id="configurations"><thead><tr>${head.map((h) => `<th>${h}</th>`).join("")}</tr></thead><tbody>${rows.join("\n")}</tbody></table>`;
}

export function htmlReport(s: RunSummary, options: HtmlOptions = {}): string {
  const base = options.runDirHref ? `${options.runDirHref.replace(/\/?$/, "/")}` : "";
  const u = s.totals.usage;
  const notes = [...s.tasks.flatMap((t) => t.notes.map((n) => `${t.id}: ${n}`)), ...s.caveats, ...s.warnings];
  const json = JSON.stringify(s).replace(/</g, "\\u003c");
  const rubric = rubricTables(s);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>kgate calibration ${esc(s.runId)}</title>
<style>${STYLE}</style>
</head>
<body>
<h1>Calibration ${esc(s.runId)}</h1>
<p class="meta">created ${esc(s.createdAt)} · report ${esc(s.generatedAt)} · ${s.mode} · n = ${s.n}</p>
${s.plumbing ? `<p id="plumbing"><strong>${esc(s.plumbing.note)}</strong></p>\n` : ""}<ul>${s.rule.map((r) => `<li>${esc(r)}</li>`).join("")}</ul>
<p id="totals">${s.totals.trials} trials: ${s.totals.pass} pass, ${s.totals.fail} fail, ${s.totals.infra} infrastructure errors, ${s.totals.unverified} unverified ·
tokens as the token budget counts them: ${esc(usageLine(u, s.totals.spent))}</p>
<ul id="provenance">${provenanceLines(s)
    .map((line) => `<li>${esc(line)}</li>`)
    .join("")}</ul>
<h2>Configurations</h2>
${configurationsTable(s)}
<h2>Pass rates and decisions</h2>
<p class="meta">Passes/valid runs (rate) [Wilson 95% interval, %]; infrastructure errors are shown but not counted.</p>
${table1(s)}
${passKTable(s)}
<h2>Pass rate per task and cell</h2>
<div class="chart">${svgChart(s)}</div>
<h2>Failure attribution, tokens and cost</h2>
${cellsTable(s)}
${rubric.length > 0 ? `<h2>Rubric criteria</h2>\n<p class="meta">${esc(RUBRIC_NOTE)}</p>\n${rubricHtml(rubric)}` : ""}
<h2>Trials</h2>
<p class="meta"># is the trial's 0-based index in its cell, as in its id; a pass in a -A or control cell is marked in red.</p>
${trialsTable(s, base)}
${notes.length > 0 ? `<h2>Notes</h2><ul id="notes">${notes.map((n) => `<li>${esc(n)}</li>`).join("")}</ul>` : ""}
<script type="application/json" id="kgate-summary">${json}</script>
</body>
</html>
`;
}
