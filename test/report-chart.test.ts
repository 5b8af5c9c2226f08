// The Fig. 2 chart as a researcher reads it: each cell's rule threshold (0.6, 0.4) dashed over its own bars,
// the n of every bar, a visible marker on a 0% bar, each task's decision above its group, one
// legend row per cell naming its configuration, and warm colours for -A and control cells.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { projectPaths } from "../src/project.ts";
import { MUST_FAIL_PALETTE, PALETTE, svgChart } from "../src/report/index.ts";
import { paperRun as makePaperRun, type PaperRun } from "./support/paper-run.ts";

const dir = mkdtempSync(path.join(tmpdir(), "kgate-chart-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let made: PaperRun | undefined;
const paperRun = (): PaperRun => {
  made ??= makePaperRun(projectPaths(dir));
  return made;
};

describe("SVG chart", () => {
  it("draws each cell's threshold as a dashed line over its own bars only", () => {
    const svg = svgChart(paperRun().summary);
    const groups = [
      ...svg.matchAll(/<g class="threshold" data-threshold="([\d.]+)" data-spec="([^"]+)">(.*?)<\/g>/gs),
    ];
    // Only frontier+A (>= 0.6) and mid+A (<= 0.4) have thresholds strictly between 0 and 1.
    expect(groups.map((m) => [m[1], m[2]])).toEqual([
      ["0.6", "frontier+A"],
      ["0.4", "mid+A"],
    ]);
    // Plot top y = 40, 220 px for 100%: 0.6 at 40 + 0.4 x 220 = 128, 0.4 at 40 + 0.6 x 220 = 172.
    const bars = [
      ...svg.matchAll(/<g class="bar" data-task="([^"]+)" data-cell="([^"]+)"[^>]*>.*?<rect x="([\d.]+)"/gs),
    ];
    for (const [, threshold, spec, body] of groups) {
      const segments = [
        ...body!.matchAll(/<line data-task="([^"]+)" x1="([\d.]+)" x2="([\d.]+)" y1="([\d.]+)"/g),
      ];
      // One segment per bar of that cell: 15 tasks + the aggregate group.
      expect(segments).toHaveLength(16);
      for (const [, task, x1, x2, y1] of segments) {
        expect(y1).toBe(threshold === "0.6" ? "128" : "172");
        // The segment spans its own bar (16 px wide) and 2 px either side, nothing more.
        const own = bars.find((b) => b[1] === task && b[2] === spec);
        expect(own, `${task} ${spec}`).toBeDefined();
        expect([Number(x1), Number(x2)]).toEqual([Number(own![3]) - 2, Number(own![3]) + 18]);
      }
    }
    expect(svg).toContain('stroke-dasharray="4 2"');
  });

  it("writes n under every bar and marks a 0% bar", () => {
    const { summary } = paperRun();
    const svg = svgChart(summary);
    const bars = [...svg.matchAll(/<g class="bar" [^>]*data-runs="(\d+)"[^>]*>(.*?)<\/g>/gs)];
    // 15 tasks x 4 cells + the 4 aggregate bars.
    expect(bars).toHaveLength(64);
    for (const [, runs, body] of bars) {
      expect(body).toContain(`<text class="n" x=`);
      expect(body).toContain(`>${runs}</text>`);
    }
    // t01 frontier-A passed 0/5: its bar has height 0, so a marker shows it.
    const t01 = /data-task="t01" data-cell="frontier-A"[^>]*>(.*?)<\/g>/s.exec(svg)![1]!;
    expect(t01).toContain('<rect class="zero"');
    const t01plus = /data-task="t01" data-cell="frontier\+A"[^>]*>(.*?)<\/g>/s.exec(svg)![1]!;
    expect(t01plus).not.toContain('class="zero"');
  });

  it("marks each task's decision above its group", () => {
    const { summary } = paperRun();
    const marks = [
      ...svgChart(summary).matchAll(/<text class="decision" data-task="([^"]+)"[^>]*>([a-z]+)<\/text>/g),
    ];
    expect(marks.map((m) => [m[1], m[2]])).toEqual(summary.tasks.map((t) => [t.id, t.decision]));
    // The paper-shaped run: t01 retain, t14 and t15 discard.
    expect(marks[0]![2]).toBe("retain");
    expect(marks[13]![2]).toBe("discard");
  });

  it("gives every cell a legend row with its configuration, -A and control in warm colours", () => {
    const svg = svgChart(paperRun().summary);
    const rows = [
      ...svg.matchAll(
        /<g class="legend" data-spec="([^"]+)"><rect x="\d+" y="(\d+)" [^>]*fill="(#[0-9a-f]+)"\/><text[^>]*>([^<]+)</g,
      ),
    ];
    expect(rows.map((r) => r[1])).toEqual(["frontier+A", "frontier-A", "mid+A", "control"]);
    // One row each, 16 px apart: no two labels share a line.
    const ys = rows.map((r) => Number(r[2]));
    expect(ys.slice(1).map((y, i) => y - ys[i]!)).toEqual([16, 16, 16]);
    expect(rows.map((r) => r[3])).toEqual([
      PALETTE[0],
      MUST_FAIL_PALETTE[0],
      PALETTE[1],
      MUST_FAIL_PALETTE[1],
    ]);
    for (const colour of PALETTE) expect(MUST_FAIL_PALETTE).not.toContain(colour);
    expect(rows[2]![4]).toBe("mid+A · mid-model via scripted (openai), digest digest-of-mi · rule &lt;= 0.4");
    expect(rows[1]![4]).toContain("must fail");
  });
});
