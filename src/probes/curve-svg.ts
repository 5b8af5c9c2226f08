// The compression curve like the paper's Fig. 3: pass rate against artefact bytes per configuration,
// Wilson 95% whiskers, the byte axis linear from 0 to LINEAR_BYTES and logarithmic above.
import { escapeXml, PALETTE } from "../report/index.ts";
import type { CompressReport } from "./compress.ts";

/** Bytes up to which the x axis is linear (0 B, the -A arm, sits at its left end). */
export const LINEAR_BYTES = 256;

export const CURVE = { left: 60, top: 36, width: 480, height: 220, linearShare: 0.2, bottom: 90, right: 24 };

/** Top of the log part of the axis: the next power of 4 times LINEAR_BYTES at or above `maxBytes`. */
export function axisMax(maxBytes: number): number {
  let top = LINEAR_BYTES * 4;
  while (top < maxBytes) top *= 4;
  return top;
}

/** x of a byte count: linear over [0, LINEAR_BYTES], log10 over [LINEAR_BYTES, top]. */
export function xOf(bytes: number, top: number): number {
  const linear = CURVE.width * CURVE.linearShare;
  if (bytes <= LINEAR_BYTES) return CURVE.left + (bytes / LINEAR_BYTES) * linear;
  const share = Math.log10(bytes / LINEAR_BYTES) / Math.log10(top / LINEAR_BYTES);
  return CURVE.left + linear + share * (CURVE.width - linear);
}

export function yOf(rate: number): number {
  return CURVE.top + (1 - rate) * CURVE.height;
}

const fmt = (v: number) => (Math.round(v * 100) / 100).toString();

function byteLabel(bytes: number): string {
  return bytes >= 1024 ? `${bytes / 1024} KiB` : `${bytes} B`;
}

export function curveSvg(report: CompressReport): string {
  const top = axisMax(Math.max(LINEAR_BYTES, ...report.results.map((r) => r.bytes)));
  const W = CURVE.left + CURVE.width + CURVE.right;
  const H = CURVE.top + CURVE.height + CURVE.bottom + report.agents.length * 14;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="11">`,
    `<title>${escapeXml(`${report.task}: pass rate against artefact bytes`)}</title>`,
    `<text x="${CURVE.left}" y="18" font-size="13" font-weight="bold">${escapeXml(report.task)}: pass rate vs artefact bytes</text>`,
  ];
  const bottom = CURVE.top + CURVE.height;
  for (const rate of [0, 0.25, 0.5, 0.75, 1]) {
    const y = fmt(yOf(rate));
    out.push(`<line x1="${CURVE.left}" x2="${CURVE.left + CURVE.width}" y1="${y}" y2="${y}" stroke="#ddd"/>`);
    out.push(
      `<text x="${CURVE.left - 6}" y="${y}" text-anchor="end" dominant-baseline="middle">${rate * 100}%</text>`,
    );
  }
  const ticks = [0, LINEAR_BYTES];
  for (let b = LINEAR_BYTES * 4; b <= top; b *= 4) ticks.push(b);
  for (const b of ticks) {
    const x = fmt(xOf(b, top));
    out.push(`<line class="tick" x1="${x}" x2="${x}" y1="${bottom}" y2="${bottom + 4}" stroke="#333"/>`);
    out.push(`<text x="${x}" y="${bottom + 16}" text-anchor="middle">${byteLabel(b)}</text>`);
  }
  const split = fmt(xOf(LINEAR_BYTES, top));
  out.push(
    `<line x1="${split}" x2="${split}" y1="${CURVE.top}" y2="${bottom}" stroke="#bbb" stroke-dasharray="3 3"/>`,
  );
  out.push(
    `<line x1="${CURVE.left}" x2="${CURVE.left + CURVE.width}" y1="${bottom}" y2="${bottom}" stroke="#333"/>`,
  );
  out.push(`<line x1="${CURVE.left}" x2="${CURVE.left}" y1="${CURVE.top}" y2="${bottom}" stroke="#333"/>`);
  out.push(
    `<text x="${CURVE.left + CURVE.width / 2}" y="${bottom + 34}" text-anchor="middle">artefact bytes (linear to ${LINEAR_BYTES} B, log above)</text>`,
  );

  report.agents.forEach((agent, i) => {
    const colour = PALETTE[i % PALETTE.length]!;
    const points = report.results
      .filter((r) => r.agent === agent.name && r.rate !== null)
      .sort((a, b) => a.bytes - b.bytes);
    const line = points.map((p) => `${fmt(xOf(p.bytes, top))},${fmt(yOf(p.rate!))}`).join(" ");
    if (points.length > 1)
      out.push(`<polyline points="${line}" fill="none" stroke="${colour}" stroke-width="1.5"/>`);
    for (const p of points) {
      const x = fmt(xOf(p.bytes, top));
      out.push(
        `<line class="whisker" x1="${x}" x2="${x}" y1="${fmt(yOf(p.interval.hi))}" y2="${fmt(yOf(p.interval.lo))}" stroke="${colour}"/>`,
      );
      const label = `${agent.name} ${p.arm}: ${p.passes}/${p.runs} at ${p.bytes} B`;
      out.push(
        `<circle class="point" data-arm="${escapeXml(p.arm)}" data-agent="${escapeXml(agent.name)}" cx="${x}" cy="${fmt(yOf(p.rate!))}" r="3.5" fill="${colour}"><title>${escapeXml(label)}</title></circle>`,
      );
    }
    const ly = bottom + 52 + i * 14;
    out.push(`<rect x="${CURVE.left}" y="${ly - 8}" width="10" height="10" fill="${colour}"/>`);
    out.push(`<text x="${CURVE.left + 16}" y="${ly}">${escapeXml(`${agent.name} (${agent.model})`)}</text>`);
  });
  out.push("</svg>");
  return `${out.join("\n")}\n`;
}
