// The triage report as Markdown (tables, every plan as written) and as an SVG chart of detection D
// and waste W against the injection ratio r, one line per framing.
import { budgetLine } from "../cost/index.ts";
import { errorKindsLine } from "../record/index.ts";
import { markdownTable } from "../report/index.ts";
import type { TriageSummary } from "./summary.ts";

const num = (v: number | null, digits = 3) => (v === null ? "n/a" : v.toFixed(digits));

function fence(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const ticks = "`".repeat(longest + 1);
  return `${ticks}\n${text}\n${ticks}`;
}

export function markdownTriage(s: TriageSummary): string {
  const lines = [
    `# Triage run ${s.run}`,
    "",
    `Pool ${s.pool.name} (${s.pool.file}, sha256 ${s.pool.digest.slice(0, 12)}); configuration ${s.configuration.name} (${s.configuration.digest.slice(0, 12)}), model ${s.model}; kgate ${s.kgateVersion}.`,
    `Phase 0: ${s.phase0.units} units, ${s.phase0.correct} correct, ${s.phase0.capped} capped, ${s.phase0.totalCost} tokens (${s.phase0.costKind ?? "no unit run"}).`,
    ...(s.budget
      ? [
          `${budgetLine(s.budget, {
            unit: "unit or plan",
            shortfall: "they were not run and have no result",
            resume: `kgate triage --agent ${s.configuration.name} --resume ${s.run}`,
          })}.`,
        ]
      : []),
    ...(errorKindsLine(s.errors)
      ? [`Failed (left out; --resume runs them), by error kind: ${errorKindsLine(s.errors)}.`]
      : []),
    `Phase 2 is simulated from phase 0: regime U exactly, regime E as c_i <= a_i and y_i${s.phase2 === "live" ? "; U-live and E-live rows are live (each planned unit run again in plan order; U-live: as phase 0 ran it, its actual cost added up and each run capped at what was left of B; E-live: with its allocation as its token limit: an item's or inline task's max_tokens, a task trial's output-token budget)" : ""}${s.resolve ? "; E-resolve rows are the budget re-solve (each planned unit again with its allocation as its token limit and stated to it: in an item's or inline task's prompt, in a task agent's system prompt)" : ""}.`,
    "",
    "## Efficiency and regret (r = 0)",
    "",
    markdownTable(
      ["alpha", "regime", "framing", "plans", "eta", "eta undefined", "regret"],
      s.main.map((r) => [
        String(r.alpha),
        r.regime,
        r.framing,
        String(r.plans),
        num(r.eta),
        String(r.etaUndefined),
        num(r.regret),
      ]),
    ),
    "",
    "eta is undefined where V_oracle = V_random (always at alpha = 1.0); those plans are left out of the mean and counted.",
    "",
    "## Unsolvable injection",
    "",
    markdownTable(
      ["r", "framing", "plans", "D (left out)", "W (tokens wasted)"],
      s.injection.map((r) => [String(r.ratio), r.framing, String(r.plans), num(r.detection), num(r.waste)]),
    ),
    "",
    "## Compliance",
    "",
    `${s.compliance.compliant} of ${s.compliance.plans - s.compliance.unreadable} readable plans keep sum a_i <= B (share ${num(s.compliance.share)}); ${s.compliance.unreadable} plans unreadable after one re-ask (scored V = 0).`,
    ...(s.phase2 === "live"
      ? [
          `Live E: ${s.compliance.liveWithin} of ${s.compliance.liveRan} units run finished within their allocation.`,
          `Live U: ${s.compliance.liveURan} units run; ${s.compliance.liveUTruncated} plans cut where the running total passed B.`,
        ]
      : []),
    ...(s.resolve
      ? [
          `Re-solve: ${s.compliance.resolveWithin} of ${s.compliance.resolveRan} units run with their allocation stated finished within it (share ${num(s.compliance.resolveShare)}).`,
        ]
      : []),
    "",
    "## Plans as written",
    "",
  ];
  for (const p of s.plans) {
    lines.push(`### ${p.key} (B = ${p.budget})`, "");
    const sc = p.scores;
    lines.push(
      `V_oracle ${sc.vOracle}, V_random ${sc.vRandom.toFixed(3)}, V_U ${sc.vU}, V_E ${sc.vE}, eta_U ${num(sc.etaU)}, eta_E ${num(sc.etaE)}${p.liveU ? `, V_U-live ${p.liveU.vU}` : ""}${p.live ? `, V_E-live ${p.live.vE}` : ""}${p.resolve ? `, V_resolve ${p.resolve.vE}` : ""}${p.plan ? `, allocated ${p.plan.allocated}${p.plan.compliant ? "" : " (over budget)"}` : `, unreadable: ${p.failure}`}.`,
    );
    for (const d of p.plan?.dropped ?? [])
      lines.push(`- dropped plan[${d.index}]${d.id ? ` ("${d.id}")` : ""}: ${d.reason}`);
    for (const [i, r] of p.replies.entries())
      lines.push("", i === 0 ? "Reply:" : "Reply to the re-ask:", "", fence(r.text));
    lines.push("");
  }
  return `${lines.join("\n")}\n`;
}

const COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"];

/** D (solid) and W (dashed) against r, one colour per framing; axes 0..1. */
export function svgTriage(s: TriageSummary): string {
  const [w, h, left, top, plot] = [520, 320, 50, 20, 240];
  const x = (r: number) => left + r * (w - left - 130);
  const y = (v: number) => top + (1 - v) * plot;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}" font-family="sans-serif" font-size="11">`,
    `<line x1="${left}" y1="${y(0)}" x2="${x(1)}" y2="${y(0)}" stroke="#333"/>`,
    `<line x1="${left}" y1="${y(0)}" x2="${left}" y2="${y(1)}" stroke="#333"/>`,
  ];
  for (const t of [0, 0.25, 0.5, 0.75, 1]) {
    parts.push(`<text x="${x(t)}" y="${y(0) + 14}" text-anchor="middle">${t}</text>`);
    parts.push(`<text x="${left - 6}" y="${y(t) + 4}" text-anchor="end">${t}</text>`);
  }
  parts.push(`<text x="${x(0.5)}" y="${h - 12}" text-anchor="middle">injection ratio r</text>`);
  const framings = [...new Set(s.injection.map((r) => r.framing))];
  framings.forEach((framing, i) => {
    const colour = COLOURS[i % COLOURS.length];
    const rows = s.injection.filter((r) => r.framing === framing);
    for (const [metric, dash] of [
      ["detection", ""],
      ["waste", ' stroke-dasharray="5 3"'],
    ] as const) {
      const points = rows
        .filter((r) => r[metric] !== null)
        .map((r) => `${x(r.ratio).toFixed(1)},${y(r[metric]!).toFixed(1)}`);
      if (points.length > 0)
        parts.push(
          `<polyline fill="none" stroke="${colour}" stroke-width="2"${dash} points="${points.join(" ")}"/>`,
        );
    }
    parts.push(
      `<text x="${x(1) + 12}" y="${top + 14 + i * 16}" fill="${colour}">${framing}: D solid, W dashed</text>`,
    );
  });
  parts.push("</svg>");
  return `${parts.join("\n")}\n`;
}
