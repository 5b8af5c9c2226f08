// The Markdown table of a run's monitoring analysis (also the monitoring section of a report).
import type { MonitorOutcome } from "../model/index.ts";
import { toFixedHalfEven } from "./fixed.ts";
import type { RunMonitoring } from "./runs.ts";

const num = (v: number | null, digits = 1) => (v === null ? "—" : toFixedHalfEven(v, digits));
const interval = (i: { low: number; high: number } | null) => (i ? `[${num(i.low)}, ${num(i.high)}]` : "—");
const row = (cells: string[]) => `| ${cells.map((c) => c.replace(/\|/g, "\\|")).join(" | ")} |`;
const head = (cells: string[]) => `${row(cells)}\n|${cells.map(() => "---").join("|")}|`;

export function runMonitoringMarkdown(m: RunMonitoring): string {
  const cells = m.cells.map(({ agent, task, condition, summary: s, interval: i }) =>
    row([
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
    ]),
  );
  const configurations = m.configurations.map((c) =>
    row([
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
    ]),
  );
  const prospective = m.configurations.flatMap((c) =>
    c.prospective
      ? [
          row([
            c.agent,
            String(c.prospective.n),
            num(c.prospective.direct),
            num(c.prospective.requestSpec),
            num(c.prospective.decline),
            String(c.prospective.unparsed),
            num(c.prospective.meanPayoff, 3),
          ]),
        ]
      : [],
  );
  return [
    "### Monitoring per cell",
    "",
    head([
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
    ]),
    ...cells,
    "",
    "### Monitoring per configuration",
    "",
    head([
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
    ]),
    ...configurations,
    "",
    ...(prospective.length === 0
      ? []
      : [
          "### Prospective choice before -A trials",
          "",
          head(["agent", "n", "ANSWER_DIRECTLY %", "REQUEST_SPEC %", "DECLINE %", "unparsed", "mean payoff"]),
          ...prospective,
          "",
        ]),
    `Across configurations: dissociation (delta vs ANSWER_DIRECTLY %) Pearson ${num(m.dissociation.pearson, 3)}, ` +
      `Spearman ${num(m.dissociation.spearman, 3)} (n = ${m.dissociation.n}); split-half (even vs odd trials) ` +
      `r ${num(m.splitHalf.r, 3)}, Spearman-Brown ${num(m.splitHalf.corrected, 3)} (n = ${m.splitHalf.n}).`,
    "",
    `${m.skipped} record(s) without probe results, with an infrastructure error or unverified were left out.`,
    "",
  ].join("\n");
}

/** One line for a trial's progress output: the choice before it and the probes after it. */
export function monitorLine(monitor: MonitorOutcome): string {
  const before = monitor.prospective
    ? `${monitor.prospective.choice ?? "unparsed"}${monitor.prospective.artefactPlaced ? " (artefact placed)" : ""} `
    : "";
  const after = monitor.retrospective
    ? `${monitor.retrospective.keep ?? "unparsed"}/${monitor.retrospective.bet ?? "unparsed"}`
    : "";
  return `${before}${after}`.trim();
}
