// The chart like the paper's Fig. 2: pass rate per task per cell as grouped bars with Wilson 95%
// whiskers, plus a final group with the aggregate over all tasks. A small SVG writer, no library.
import { percent } from "./format.ts";
import type { Interval, RunSummary } from "./model.ts";

export const PALETTE = [
  "#3b6fb6",
  "#c8553d",
  "#5b8e3e",
  "#8a5fb0",
  "#d69a2d",
  "#5f6b7a",
  "#2b9aa0",
  "#b04a7a",
];

const BAR = 16;
const GAP = 22;
const LEFT = 52;
const RIGHT = 16;
const TOP = 40;
const PLOT = 220;
const BOTTOM = 96;

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
  bars: Bar[];
}

function groups(s: RunSummary): Group[] {
  const order = s.specs.map((x) => x.name);
  const out: Group[] = s.tasks.map((t) => ({
    label: t.id,
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

/** The chart as a standalone SVG document (also inlined in the HTML page). */
export function svgChart(s: RunSummary): string {
  const specs = s.specs.map((x) => x.name);
  const colourOf = (spec: string) => PALETTE[Math.max(0, specs.indexOf(spec)) % PALETTE.length]!;
  const all = groups(s);
  const widths = all.map((g) => Math.max(1, g.bars.length) * BAR + GAP);
  const plotWidth = widths.reduce((a, b) => a + b, 0);
  const legendWidth = specs.reduce((w, name) => w + 24 + name.length * 7, 0);
  const width = Math.max(LEFT + plotWidth + RIGHT, LEFT + legendWidth + RIGHT, 360);
  const height = TOP + PLOT + BOTTOM;
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
  );
  let x = LEFT + GAP / 2;
  all.forEach((g, i) => {
    g.bars.forEach((b, j) => {
      out.push(bar(b, x + j * BAR, colourOf(b.spec)));
    });
    const mid = x + (g.bars.length * BAR) / 2;
    out.push(
      `<text transform="translate(${fmt(mid)} ${fmt(TOP + PLOT + 12)}) rotate(-35)" font-size="10" text-anchor="end" fill="#222">${escapeXml(g.label)}</text>`,
    );
    x += widths[i]!;
  });
  let lx = LEFT;
  for (const name of specs) {
    out.push(
      `<rect x="${lx}" y="12" width="12" height="12" fill="${colourOf(name)}"/>`,
      `<text x="${lx + 16}" y="22" font-size="11" fill="#222">${escapeXml(name)}</text>`,
    );
    lx += 24 + name.length * 7;
  }
  out.push("</svg>");
  return out.join("\n");
}
