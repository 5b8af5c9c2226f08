// The chart like the paper's Fig. 2: pass rate per task per cell as grouped bars with Wilson 95%
// whiskers, plus a final group with the aggregate over all tasks; each cell's rule threshold as a
// dashed line over its own bars, n under every bar, a marker on a 0% bar, each task's decision above its group, and
// one legend row per cell naming its configuration. A small SVG writer, no library.
import type { Interval } from "../common/index.ts";
import { percent } from "./format.ts";
import { configurationText } from "./provenance.ts";
import type { RunSummary, Spec } from "./schema.ts";

/** Cells that should pass (+A, variants that keep the convention): cool colours. */
export const PALETTE = ["#3b6fb6", "#2b9aa0", "#5f6b7a", "#8a5fb0", "#1f4e79", "#6c8ebf"];
/** Cells that must fail (-A, controls): warm colours, so that their passes never read as good news. */
export const MUST_FAIL_PALETTE = ["#c8553d", "#b04a7a", "#d69a2d", "#8c3b2a"];

const DECISION_COLOUR: Record<string, string> = {
  retain: "#1f7a1f",
  revise: "#9a6700",
  discard: "#b42318",
  incomplete: "#555555",
};

const BAR = 16;
const GAP = 22;
const LEFT = 52;
const RIGHT = 16;
const TOP = 40;
const PLOT = 220;
/** Below the plot: the n under each bar, then the group labels. */
const BOTTOM = 104;
const LEGEND_ROW = 16;

export function escapeXml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

interface Bar {
  task: string;
  cell: string;
  spec: string;
  passes: number;
  runs: number;
  rate: number | null;
  interval: Interval;
}

interface Group {
  label: string;
  decision: string | null;
  bars: Bar[];
}

/** -A cells and controls must fail: a pass there is a problem, never good news. */
export function mustFail(spec: Pick<Spec, "condition" | "control">): boolean {
  return spec.condition === "-A" || spec.control;
}

/** Colours per spec name: cool for cells that should pass, warm for cells that must fail. */
export function specColours(specs: readonly Spec[]): Map<string, string> {
  const colours = new Map<string, string>();
  let cool = 0;
  let warm = 0;
  for (const spec of specs) {
    colours.set(
      spec.name,
      mustFail(spec)
        ? MUST_FAIL_PALETTE[warm++ % MUST_FAIL_PALETTE.length]!
        : PALETTE[cool++ % PALETTE.length]!,
    );
  }
  return colours;
}

function groups(s: RunSummary): Group[] {
  const order = s.specs.map((x) => x.name);
  const out: Group[] = s.tasks.map((t) => ({
    label: t.id,
    decision: t.decision,
    bars: s.cells
      .filter((c) => c.task === t.id)
      .sort((a, b) => order.indexOf(a.spec) - order.indexOf(b.spec))
      .map((c) => ({
        task: t.id,
        cell: c.label,
        spec: c.spec,
        passes: c.counts.pass,
        runs: c.counts.runs,
        rate: c.rate,
        interval: c.interval,
      })),
  }));
  if (s.tasks.length > 1) {
    out.push({
      label: "all tasks",
      decision: null,
      bars: s.aggregates
        .filter((a) => a.scope === "all")
        .map((a) => ({
          task: "all tasks",
          cell: a.spec,
          spec: a.spec,
          passes: a.passes,
          runs: a.runs,
          rate: a.rate,
          interval: a.interval,
        })),
    });
  }
  return out;
}

const y = (rate: number) => TOP + (1 - rate) * PLOT;
const fmt = (n: number) => (Math.round(n * 100) / 100).toString();

function bar(b: Bar, x: number, colour: string): string {
  const cx = x + BAR / 2;
  const title = `${b.task} · ${b.cell}: ${b.passes}/${b.runs}${b.rate === null ? "" : ` = ${percent(b.rate, b.runs)}`} [${percent(b.interval.lo, b.runs)}, ${percent(b.interval.hi, b.runs)}]`;
  const data =
    `data-task="${escapeXml(b.task)}" data-cell="${escapeXml(b.cell)}" data-passes="${b.passes}" data-runs="${b.runs}"` +
    ` data-rate="${b.rate ?? ""}" data-lo="${b.interval.lo}" data-hi="${b.interval.hi}"`;
  const parts = [`<g class="bar" ${data}><title>${escapeXml(title)}</title>`];
  parts.push(
    `<text class="n" x="${fmt(cx)}" y="${fmt(y(0) + 11)}" font-size="8" text-anchor="middle" fill="#444">${b.runs}</text>`,
  );
  if (b.rate === 0) {
    parts.push(
      `<rect class="zero" x="${fmt(x + 1)}" y="${fmt(y(0) - 3)}" width="${BAR - 2}" height="3" fill="${colour}" stroke="#222" stroke-width="0.6"/>`,
    );
  }
  if (b.rate === null) {
    parts.push(
      `<text x="${fmt(cx)}" y="${fmt(y(0) - 4)}" font-size="9" text-anchor="middle" fill="#666">n/a</text>`,
    );
  } else {
    const height = Math.max(b.rate * PLOT, 0);
    parts.push(
      `<rect x="${fmt(x)}" y="${fmt(y(b.rate))}" width="${BAR}" height="${fmt(height)}" fill="${colour}"/>`,
      `<line class="whisker" x1="${fmt(cx)}" x2="${fmt(cx)}" y1="${fmt(y(b.interval.hi))}" y2="${fmt(y(b.interval.lo))}" stroke="#222" stroke-width="1.2"/>`,
      `<line x1="${fmt(cx - 4)}" x2="${fmt(cx + 4)}" y1="${fmt(y(b.interval.hi))}" y2="${fmt(y(b.interval.hi))}" stroke="#222" stroke-width="1.2"/>`,
      `<line x1="${fmt(cx - 4)}" x2="${fmt(cx + 4)}" y1="${fmt(y(b.interval.lo))}" y2="${fmt(y(b.interval.lo))}" stroke="#222" stroke-width="1.2"/>`,
    );
  }
  parts.push("</g>");
  return parts.join("");
}

/** A cell's rule threshold when it is strictly between 0 and 1 (0.6 and 0.4 in the paper's rule). */
function thresholdOf(spec: Spec | undefined): number | null {
  const t = spec?.require?.threshold;
  return t !== undefined && t > 0 && t < 1 ? t : null;
}

/**
 * Each cell's threshold drawn over its own bars only (a dashed segment a little wider than the bar),
 * grouped per cell spec; its value written once at the plot's right edge.
 */
function thresholdMarks(s: RunSummary, placed: Array<{ bar: Bar; x: number }>, right: number): string[] {
  const out: string[] = [];
  const labelled = new Set<number>();
  for (const spec of s.specs) {
    const t = thresholdOf(spec);
    if (t === null) continue;
    const ty = fmt(y(t));
    const segments = placed
      .filter((p) => p.bar.spec === spec.name)
      .map(
        (p) =>
          `<line data-task="${escapeXml(p.bar.task)}" x1="${fmt(p.x - 2)}" x2="${fmt(p.x + BAR + 2)}" y1="${ty}" y2="${ty}" stroke="#222" stroke-width="1.4" stroke-dasharray="4 2"/>`,
      );
    if (segments.length === 0) continue;
    const label = labelled.has(t)
      ? ""
      : `<text x="${fmt(right + 4)}" y="${ty}" dy="3" font-size="10" fill="#222">${t}</text>`;
    labelled.add(t);
    out.push(
      `<g class="threshold" data-threshold="${t}" data-spec="${escapeXml(spec.name)}">${segments.join("")}${label}</g>`,
    );
  }
  return out;
}

/** The chart as a standalone SVG document (also inlined in the HTML page). */
export function svgChart(s: RunSummary): string {
  const colours = specColours(s.specs);
  const colourOf = (spec: string) => colours.get(spec) ?? PALETTE[0]!;
  const legend = s.specs.map((spec) => {
    const config = s.configurations.find((c) => c.label === spec.name);
    const role = mustFail(spec)
      ? "must fail"
      : spec.require
        ? `rule ${spec.require.op} ${spec.require.threshold}`
        : "";
    const parts = [spec.name, config ? configurationText(config) : spec.agent, role].filter((p) => p !== "");
    return { spec: spec.name, text: parts.join(" · ") };
  });
  const all = groups(s);
  const widths = all.map((g) => Math.max(1, g.bars.length) * BAR + GAP);
  const plotWidth = widths.reduce((a, b) => a + b, 0);
  const legendWidth = Math.max(0, ...legend.map((l) => 20 + l.text.length * 6));
  const width = Math.max(LEFT + plotWidth + RIGHT + 30, LEFT + legendWidth + RIGHT, 360);
  const legendTop = TOP + PLOT + BOTTOM;
  const height = legendTop + legend.length * LEGEND_ROW + 8;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, sans-serif" role="img" aria-label="Pass rate per task and cell with Wilson 95% intervals">`,
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
  ];
  for (let tick = 0; tick <= 100; tick += 20) {
    const ty = fmt(y(tick / 100));
    out.push(
      `<line x1="${LEFT}" x2="${fmt(LEFT + plotWidth)}" y1="${ty}" y2="${ty}" stroke="${tick === 0 ? "#444" : "#ddd"}"/>`,
      `<text x="${LEFT - 6}" y="${ty}" dy="3" font-size="10" text-anchor="end" fill="#444">${tick}%</text>`,
    );
  }
  out.push(
    `<text transform="translate(14 ${fmt(TOP + PLOT / 2)}) rotate(-90)" font-size="11" text-anchor="middle" fill="#222">pass rate</text>`,
    `<text x="${LEFT - 6}" y="${fmt(y(0) + 11)}" font-size="8" text-anchor="end" fill="#444">n</text>`,
  );
  let x = LEFT + GAP / 2;
  const placed: Array<{ bar: Bar; x: number }> = [];
  all.forEach((g, i) => {
    g.bars.forEach((b, j) => {
      out.push(bar(b, x + j * BAR, colourOf(b.spec)));
      placed.push({ bar: b, x: x + j * BAR });
    });
    const mid = x + (g.bars.length * BAR) / 2;
    if (g.decision) {
      out.push(
        `<text class="decision" data-task="${escapeXml(g.label)}" x="${fmt(mid)}" y="${TOP - 8}" font-size="9" text-anchor="middle" fill="${DECISION_COLOUR[g.decision] ?? "#222"}">${escapeXml(g.decision)}</text>`,
      );
    }
    out.push(
      `<text transform="translate(${fmt(mid)} ${fmt(TOP + PLOT + 24)}) rotate(-35)" font-size="10" text-anchor="end" fill="#222">${escapeXml(g.label)}</text>`,
    );
    x += widths[i]!;
  });
  out.push(...thresholdMarks(s, placed, LEFT + plotWidth));
  legend.forEach((l, i) => {
    const ly = legendTop + i * LEGEND_ROW;
    out.push(
      `<g class="legend" data-spec="${escapeXml(l.spec)}"><rect x="${LEFT}" y="${ly}" width="12" height="12" fill="${colourOf(l.spec)}"/>` +
        `<text x="${LEFT + 18}" y="${ly + 10}" font-size="11" fill="#222">${escapeXml(l.text)}</text></g>`,
    );
  });
  out.push("</svg>");
  return out.join("\n");
}
