// The tables of a run's monitoring analysis as Markdown and as HTML (the monitoring section of a
// report), and the one-line progress form of a trial's questions.
import { errorKindsLine, type MonitorOutcome } from "../record/index.ts";
import { escapeXml as esc, markdownTable } from "../report/index.ts";
import { toFixedHalfEven } from "./fixed.ts";
import { htmlTable, type Table } from "./html-table.ts";
import type { RunMonitoring } from "./runs.ts";

const num = (v: number | null, digits = 1) => (v === null ? "—" : toFixedHalfEven(v, digits));
const interval = (i: { low: number; high: number } | null) => (i ? `[${num(i.low)}, ${num(i.high)}]` : "—");

/** The analysis as titled tables and closing sentences, for the Markdown and the HTML form. */
function monitoringTables(m: RunMonitoring): { tables: Table[]; sentences: string[] } {
  const cells = m.cells.map(({ agent, task, condition, summary: s, interval: i }) => [
    agent,
    task,
    condition,
    String(s.n),
    num(s.accuracy, 2),
    num(s.keepRate),
    num(s.withdrawDelta),
    interval(i),
    num(s.contradiction, 2),
    String(s.nUnparsedKeep),
  ]);
  const configurations = m.configurations.map((c) => [
    c.agent,
    c.model ?? "—",
    c.digest.slice(0, 12),
    String(c.summary.n),
    num(c.summary.kcRate),
    num(c.summary.kiRate),
    num(c.summary.withdrawDelta),
    interval(c.interval),
    c.profile,
    num(c.withdrawRateMinusA),
    `${c.probeTokens} (${c.probeCalls} calls)`,
  ]);
  const prospective = m.configurations.flatMap((c) =>
    c.prospective
      ? [
          [
            c.agent,
            String(c.prospective.n),
            num(c.prospective.direct),
            num(c.prospective.requestSpec),
            num(c.prospective.decline),
            String(c.prospective.unparsed),
            num(c.prospective.meanPayoff, 3),
          ],
        ]
      : [],
  );
  const tables: Table[] = [
    {
      title: "Monitoring per cell",
      head: [
        "agent",
        "task",
        "condition",
        "n",
        "accuracy",
        "KEEP %",
        "delta (pp)",
        "95% interval",
        "contradiction",
        "unparsed",
      ],
      rows: cells,
    },
    {
      title: "Monitoring per configuration",
      head: [
        "agent",
        "model",
        "digest",
        "n",
        "KEEP on correct %",
        "KEEP on incorrect %",
        "delta (pp)",
        "95% interval",
        "profile",
        "WITHDRAW under -A %",
        "probe tokens",
      ],
      rows: configurations,
    },
  ];
  if (prospective.length > 0) {
    tables.push({
      title: "Prospective choice before -A trials",
      head: ["agent", "n", "ANSWER_DIRECTLY %", "REQUEST_SPEC %", "DECLINE %", "unparsed", "mean payoff"],
      rows: prospective,
    });
  }
  if (m.requestSpecPerTask.length > 0) {
    tables.push({
      title: "Prospective choice per -A cell (gated task)",
      head: [
        "agent",
        "task",
        "n",
        "ANSWER_DIRECTLY %",
        "REQUEST_SPEC %",
        "DECLINE %",
        "unparsed",
        "mean payoff",
        "not -A answers",
      ],
      rows: m.requestSpecPerTask.map((c) => [
        c.agent,
        c.task,
        String(c.n),
        num(c.direct),
        num(c.requestSpec),
        num(c.decline),
        String(c.unparsed),
        num(c.meanPayoff, 3),
        String(c.leftOut),
      ]),
    });
  }
  const sentences = [
    `Across configurations: dissociation (delta vs ANSWER_DIRECTLY %) Pearson ${num(m.dissociation.pearson, 3)}, ` +
      `Spearman ${num(m.dissociation.spearman, 3)} (n = ${m.dissociation.n}); split-half (even vs odd trials) ` +
      `r ${num(m.splitHalf.r, 3)}, Spearman-Brown ${num(m.splitHalf.corrected, 3)} (n = ${m.splitHalf.n}).`,
    `${m.skipped} record(s) without probe results, with an infrastructure error or unverified were left out.`,
  ];
  const trials = errorKindsLine(m.errors.trials);
  const probes = errorKindsLine(m.errors.probes);
  if (trials) sentences.push(`Trials left out for an infrastructure error, by kind: ${trials}.`);
  if (probes) sentences.push(`Probes that failed (their answer unread), by kind: ${probes}.`);
  return { tables, sentences };
}

export function runMonitoringMarkdown(m: RunMonitoring): string {
  const { tables, sentences } = monitoringTables(m);
  return [
    ...tables.flatMap((t) => [`### ${t.title}`, "", markdownTable(t.head, t.rows), ""]),
    ...sentences.flatMap((s) => [s, ""]),
  ].join("\n");
}

/** The same analysis as an HTML fragment (every text escaped), for report.html. */
export function runMonitoringHtml(m: RunMonitoring): string {
  const { tables, sentences } = monitoringTables(m);
  return [
    ...tables.map((t) => htmlTable(t, "h3")),
    ...sentences.map((s) => `<p class="meta">${esc(s)}</p>`),
  ].join("\n");
}

/** One line for a trial's progress output: the choice before it and the questions after it. */
export function monitorLine(monitor: MonitorOutcome): string {
  const before = monitor.prospective
    ? `${monitor.prospective.choice ?? "unparsed"}${monitor.prospective.artefactPlaced ? " (artefact placed)" : ""} `
    : "";
  const after = monitor.retrospective
    ? `${monitor.retrospective.keep ?? "unparsed"}/${monitor.retrospective.bet ?? "unparsed"}`
    : "";
  return `${before}${after}`.trim();
}
