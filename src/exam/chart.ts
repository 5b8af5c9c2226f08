// The effort-by-position chart (SVG): for each exam size N, the mean share of the attributed tokens
// spent at each presentation position; a flat line is effort independent of position.
import { escapeXml, PALETTE } from "../report/index.ts";
import type { ExamSummary } from "./summary.ts";

const WIDTH = 640;
const HEIGHT = 320;
const LEFT = 56;
const RIGHT = 120;
const TOP = 40;
const BOTTOM = 48;

export function effortChart(summary: ExamSummary): string {
  const series = summary.effortByPosition;
  const maxN = Math.max(2, ...series.map((s) => s.n));
  const maxShare = Math.max(0.05, ...series.flatMap((s) => s.share));
  const plotW = WIDTH - LEFT - RIGHT;
  const plotH = HEIGHT - TOP - BOTTOM;
  const x = (position: number) => LEFT + ((position - 1) / (maxN - 1)) * plotW;
  const y = (share: number) => TOP + plotH - (share / maxShare) * plotH;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="11">`,
    `<text x="${LEFT}" y="20" font-size="13">${escapeXml(`Effort by position: ${summary.agent.name} (${summary.agent.model ?? "no model"}), ${summary.kind}, B = ${summary.budget}`)}</text>`,
    `<line x1="${LEFT}" y1="${TOP + plotH}" x2="${LEFT + plotW}" y2="${TOP + plotH}" stroke="#444"/>`,
    `<line x1="${LEFT}" y1="${TOP}" x2="${LEFT}" y2="${TOP + plotH}" stroke="#444"/>`,
    `<text x="${LEFT + plotW / 2}" y="${HEIGHT - 12}" text-anchor="middle">position in the exam</text>`,
    `<text x="14" y="${TOP + plotH / 2}" transform="rotate(-90 14 ${TOP + plotH / 2})" text-anchor="middle">share of attributed tokens</text>`,
  ];
  for (const tick of [0, 0.5, 1]) {
    const v = tick * maxShare;
    parts.push(`<text x="${LEFT - 6}" y="${y(v) + 4}" text-anchor="end">${(100 * v).toFixed(0)}%</text>`);
  }
  for (const p of [1, maxN])
    parts.push(`<text x="${x(p)}" y="${TOP + plotH + 16}" text-anchor="middle">${p}</text>`);
  series.forEach((s, k) => {
    const colour = PALETTE[k % PALETTE.length]!;
    const points = s.share.map((v, i) => `${x(i + 1).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
    parts.push(`<polyline fill="none" stroke="${colour}" stroke-width="2" points="${points}"/>`);
    for (const [i, v] of s.share.entries())
      parts.push(`<circle cx="${x(i + 1).toFixed(1)}" cy="${y(v).toFixed(1)}" r="2.5" fill="${colour}"/>`);
    parts.push(`<text x="${LEFT + plotW + 12}" y="${TOP + 14 + 16 * k}" fill="${colour}">N = ${s.n}</text>`);
  });
  parts.push("</svg>");
  return `${parts.join("\n")}\n`;
}
