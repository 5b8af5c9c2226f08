// The tables of `kgate monitor analyse`: the exact CSV of the battery's per-track results, and a
// Markdown or HTML table with the per-model means, profiles, T6 choice mix, the leaderboard and the
// cross-model figures.
import { escapeXml as esc, markdownTable, spreadsheetCell } from "../report/index.ts";
import type { BatteryAnalysis } from "./battery.ts";
import { toFixedHalfEven } from "./fixed.ts";
import { htmlTable, type Table } from "./html-table.ts";
import type { ImportProblem } from "./published.ts";

export const CSV_COLUMNS = [
  "model",
  "track",
  "accuracy",
  "kc_rate",
  "ki_rate",
  "withdraw_delta",
  "n_correct",
  "n_incorrect",
] as const;

/** One row per model x track; rates in percent (0.00 for an empty group, as published), delta empty when undefined. */
export function batteryCsv(analysis: BatteryAnalysis): string {
  const lines = [CSV_COLUMNS.join(",")];
  for (const { model, track, summary: s } of analysis.tracks) {
    lines.push(
      [
        spreadsheetCell(model),
        spreadsheetCell(track),
        toFixedHalfEven(s.accuracy ?? 0, 4),
        toFixedHalfEven(s.kcRate ?? 0, 2),
        toFixedHalfEven(s.kiRate ?? 0, 2),
        s.withdrawDelta === null ? "" : toFixedHalfEven(s.withdrawDelta, 2),
        String(s.nCorrect),
        String(s.nIncorrect),
      ].join(","),
    );
  }
  return `${lines.join("\n")}\n`;
}

const num = (v: number | null, digits = 2) => (v === null ? "—" : toFixedHalfEven(v, digits));
const interval = (i: { low: number; high: number } | null) =>
  i ? `[${num(i.low, 1)}, ${num(i.high, 1)}]` : "—";

function tables(analysis: BatteryAnalysis, problems: readonly ImportProblem[]): Table[] {
  const d = analysis.dissociation;
  const h = analysis.splitHalf;
  return [
    {
      title: "Per model and track",
      head: [
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
      ],
      rows: analysis.tracks.map(({ model, track, summary: s, interval: i }) => [
        model,
        track,
        num(s.accuracy, 4),
        num(s.kcRate),
        num(s.kiRate),
        num(s.withdrawDelta),
        interval(i),
        String(s.nCorrect),
        String(s.nIncorrect),
        num(s.contradiction, 3),
      ]),
    },
    {
      title: "Per model (T1-T5 means; T6 choices)",
      head: [
        "model",
        "mean delta (pp)",
        "mean KEEP %",
        "profile",
        "ANSWER_DIRECTLY %",
        "REQUEST_HINT %",
        "DECLINE %",
        "mean payoff",
        "mean published score",
      ],
      rows: analysis.models.map((m) => [
        m.model,
        num(m.meanDelta),
        num(m.meanKeepRate),
        m.profile,
        num(m.choices?.direct ?? null, 1),
        num(m.choices?.hint ?? null, 1),
        num(m.choices?.decline ?? null, 1),
        num(m.meanPayoff, 3),
        num(m.meanPublishedScore, 3),
      ]),
    },
    {
      title: "Leaderboard (T1-T5 means; rank 1 = highest)",
      head: ["model", "accuracy rank", "mean delta (pp)", "metacognition rank", "mean accuracy", "profile"],
      rows: analysis.leaderboard.map((r) => [
        r.model,
        String(r.accuracyRank),
        num(r.meanDelta, 1),
        String(r.metacognitionRank),
        num(r.meanAccuracy, 3),
        r.profile,
      ]),
    },
    {
      title: "Across models",
      head: ["figure", "value", "n"],
      rows: [
        ["dissociation, Pearson (mean delta vs ANSWER_DIRECTLY %)", num(d.pearson, 3), String(d.n)],
        ["dissociation, Spearman", num(d.spearman, 3), String(d.n)],
        ["split-half r (T1+T2+T4 vs T3+T5+T6)", num(h.r, 3), String(h.n)],
        ["split-half, Spearman-Brown corrected", num(h.corrected, 3), String(h.n)],
      ],
    },
    ...(problems.length === 0
      ? []
      : [
          {
            title: "Unreadable rows and files",
            head: ["file", "line", "problem"],
            rows: problems.map((p) => [p.file, p.line === null ? "—" : String(p.line), p.message]),
          },
        ]),
  ];
}

export function batteryMarkdown(analysis: BatteryAnalysis, problems: readonly ImportProblem[]): string {
  return tables(analysis, problems)
    .map((t) => `### ${t.title}\n\n${markdownTable(t.head, t.rows)}\n`)
    .join("\n");
}

export function batteryHtml(
  analysis: BatteryAnalysis,
  problems: readonly ImportProblem[],
  title: string,
): string {
  const body = tables(analysis, problems)
    .map((t) => htmlTable(t, "h2"))
    .join("\n");
  return `<!doctype html>\n<html><head><meta charset="utf-8"><title>${esc(title)}</title>\n<style>table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}td:first-child{text-align:left}</style>\n</head><body>\n<h1>${esc(title)}</h1>\n${body}\n</body></html>\n`;
}
