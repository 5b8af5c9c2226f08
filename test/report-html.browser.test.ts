// The HTML report in Debian's headless Chromium: it renders without console errors, fetches
// nothing, and its Table 1, chart and trial rows match the summary JSON.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { projectPaths } from "../src/project.ts";
import { htmlReport, RunSummary } from "../src/report/index.ts";
import { openInChromium } from "./support/chromium.ts";
import { paperRun as makePaperRun, type PaperRun } from "./support/paper-run.ts";

const dir = mkdtempSync(path.join(tmpdir(), "kgate-html-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let made: PaperRun | undefined;
const paperRun = (): PaperRun => {
  made ??= makePaperRun(projectPaths(dir));
  return made;
};

interface Row {
  task: string;
  cells: Record<string, { passes: number; runs: number; text: string }>;
  decision: string;
  reasons: string[];
}

describe("HTML report in headless Chromium", () => {
  it("renders cleanly and matches the JSON", async () => {
    const run = paperRun();
    const file = path.join(run.runDir, "report.html");
    writeFileSync(file, htmlReport(run.summary));
    const opened = await openInChromium(pathToFileURL(file).href);
    try {
      const { page } = opened;
      const rows: Row[] = await page.$$eval("#table1 tbody tr[data-task]", (trs) =>
        trs.map((tr) => ({
          task: tr.getAttribute("data-task")!,
          cells: Object.fromEntries(
            [...tr.querySelectorAll("td[data-spec][data-passes]")].map((td) => [
              td.getAttribute("data-spec")!,
              {
                passes: Number(td.getAttribute("data-passes")),
                runs: Number(td.getAttribute("data-runs")),
                text: td.textContent!,
              },
            ]),
          ),
          decision: tr.querySelector("td.decision")!.textContent!,
          reasons: [...tr.querySelectorAll("ul.reasons li")].map((li) => li.textContent!),
        })),
      );
      const embedded = RunSummary.parse(
        JSON.parse(await page.$eval("#kgate-summary", (el) => el.textContent!)),
      );
      expect(embedded).toEqual(run.summary);
      expect(rows.map((r) => r.task)).toEqual(embedded.tasks.map((t) => t.id));
      for (const row of rows) {
        const task = embedded.tasks.find((t) => t.id === row.task)!;
        const flag = task.borderline.length > 0 ? ` (borderline: ${task.borderline.join("; ")})` : "";
        expect(row.decision).toBe(`${task.decision}${flag}`);
        expect(row.reasons).toEqual(task.reasons);
        for (const spec of embedded.specs) {
          const cell = embedded.cells.find((c) => c.task === row.task && c.spec === spec.name)!;
          expect(row.cells[spec.name]).toMatchObject({ passes: cell.counts.pass, runs: cell.counts.runs });
        }
      }
      const aggregate = await page.$$eval("#table1 tr[data-scope='all'] td[data-spec]", (tds) =>
        tds.map((td) => `${td.getAttribute("data-spec")} ${td.textContent}`),
      );
      expect(aggregate).toEqual([
        "frontier+A 51/75 (68.0%) [56.8, 77.5]",
        "frontier-A 0/75 (0.0%) [0.0, 4.9]",
        "mid+A 17/75 (22.7%) [14.7, 33.3]",
        "control 1/75 (1.3%) [0.2, 7.2]",
      ]);

      expect(await page.locator("svg g.bar").count()).toBe(64);
      const box = await page.locator("svg").first().boundingBox();
      expect(box!.width).toBeGreaterThan(600);

      const links = await page.$$eval("#trials tr[data-trial] a", (as) =>
        as.map((a) => (a as HTMLAnchorElement).href),
      );
      expect(links).toHaveLength(embedded.trials.length);
      for (const href of links) expect(existsSync(fileURLToPath(href))).toBe(true);
      expect(await page.locator("#cells tbody tr").count()).toBe(embedded.cells.length);

      expect(opened.problems).toEqual([]);
    } finally {
      await opened.close();
    }
  });

  it("keeps every interval on one line and never colours a -A or control pass as good news", async () => {
    const run = paperRun();
    const file = path.join(run.runDir, "report-narrow.html");
    writeFileSync(file, htmlReport(run.summary));
    const opened = await openInChromium(pathToFileURL(file).href);
    try {
      const { page } = opened;
      // A narrow window squeezes the table: a cell that may wrap would break inside its interval.
      await page.setViewportSize({ width: 480, height: 800 });
      const lineCounts = await page.$$eval("#table1 td.tally", (tds) =>
        tds.map((td) => {
          const range = document.createRange();
          range.selectNodeContents(td);
          return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
        }),
      );
      // 15 tasks + 2 aggregate rows, 4 cells each.
      expect(lineCounts).toHaveLength(17 * 4);
      expect(lineCounts.every((n) => n === 1)).toBe(true);
      // The paper-shaped run has one control pass (t03): it is marked unwanted, in red.
      const unwanted = await page.$$eval("#trials td.pass.unwanted", (tds) =>
        tds.map((td) => [td.closest("tr")!.getAttribute("data-trial"), getComputedStyle(td).color]),
      );
      expect(unwanted).toEqual([["t03.variant-perturbed.frontier.0", "rgb(180, 35, 24)"]]);
      expect(opened.problems).toEqual([]);
    } finally {
      await opened.close();
    }
  });

  it("blocks any script or remote resource by its Content-Security-Policy", async () => {
    const run = paperRun();
    const page = htmlReport(run.summary).replace("</body>", '<script>document.title = "ran"</script></body>');
    const file = path.join(run.runDir, "tampered.html");
    writeFileSync(file, page);
    const opened = await openInChromium(pathToFileURL(file).href);
    try {
      expect(await opened.page.title()).toBe("kgate calibration paper");
      expect(opened.problems.join("\n")).toMatch(/Content Security Policy/);
    } finally {
      await opened.close();
    }
  });
});
