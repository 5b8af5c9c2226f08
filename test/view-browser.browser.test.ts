// `kgate view` in Debian's headless Chromium (playwright-core, no browser download): served on
// 127.0.0.1 at 1400 px, filter to failed -A trials, open one, see its diff side by side, attribution,
// its outputs' text (escaped), probe and trajectory (a tool call and its result in one row, none
// empty), the numbers of the trial table still in view, the task's cells side by side, live refresh
// when a record is appended; the --out folder zipped, extracted elsewhere and opened from file://
// with the run directory gone; two runs as a run x cell matrix, a pass where the cell must fail
// marked apart from ordinary fails. No console error.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { cpSync, existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { type OpenedPage, openInChromium } from "./support/chromium.ts";
import { KGATE_BIN, kgate } from "./support/cli.ts";
import { tempDir, tempProject } from "./support/project.ts";
import { DIFF_ROWS, SHOWN_OUTPUT, SHOWN_TRIAL, viewRun } from "./support/view-run.ts";

const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGTERM");
});

/** Starts `kgate view --json` and resolves with its URL (the first stdout line). */
function serve(root: string, run: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [KGATE_BIN, "--root", root, "view", run, "--json"], {
    env: { ...process.env, NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    child.stderr!.on("data", (d) => {
      err += d;
    });
    child.stdout!.on("data", (d) => {
      out += d;
      const line = out.split("\n")[0];
      if (out.includes("\n")) resolve({ url: JSON.parse(line!).url, child });
    });
    child.on("exit", (code) => reject(new Error(`kgate view exited ${code}: ${err}`)));
  });
}

/** Filters to failed -A trials of t02 and opens the readable one. */
async function openFailedMinusA(page: OpenedPage["page"]): Promise<void> {
  await page.waitForSelector("#trials tbody tr");
  await page.selectOption("#filter-condition", "-A");
  await page.selectOption("#filter-outcome", "fail");
  // Every frontier -A trial fails in the paper-shaped run: 15 tasks x 5 trials.
  expect(await page.locator("#trials tbody tr").count()).toBe(75);
  await page.selectOption("#filter-task", "t02");
  expect(await page.locator("#trials tbody tr").count()).toBe(5);
  await page.locator(`#trials tr[data-trial="${SHOWN_TRIAL}"]`).click();
  await page.waitForSelector("#diff");
  // The diff side by side: each expected row beside the actual row it became, after the file's name.
  const rows = await page.$$eval("#diff tbody tr", (trs) =>
    trs.map((tr) => [tr.className, ...[...tr.querySelectorAll("td")].map((td) => td.textContent)]),
  );
  expect(rows.filter((r) => r[0] === "file")).toEqual([["file", "output/assembly_costs.csv"]]);
  expect(rows.filter((r) => r[0] === "pair")).toEqual(DIFF_ROWS.map(([e, a]) => ["pair", e, a]));
  expect(await page.textContent("#attribution")).toBe("default-convention");
  expect(await page.textContent("#verdict-status")).toBe("fail (reward 0, score 0.00)");
  expect(await page.textContent("#probes")).toContain("10% flat");
  // The collected output's text as text: its <script> line is shown, never run or parsed.
  expect(await page.textContent('#outputs li[data-path="output/assembly_costs.csv"] pre')).toBe(SHOWN_OUTPUT);
  expect(await page.locator("#outputs script").count()).toBe(0);
  expect(await page.textContent('#outputs li[data-path="output/notes.txt"]')).toContain(
    "missing (the file was not written)",
  );
  // A tool call and its result in one row; a call without input and with an empty result says so.
  const events = await page.$$eval("#events li.event", (lis) =>
    lis.map((li) => [
      li.className,
      li.querySelector(".event-head")!.firstChild!.textContent,
      li.querySelectorAll("pre").length,
    ]),
  );
  expect(events).toEqual([
    ["event model", "model · turn 1", 1],
    ["event tool-call", "tool · bash · turn 1", 2],
    ["event tool-call", "tool · finish · turn 2 · no input · empty output", 0],
    ["event note", "note · probe", 1],
    ["event error error", "error · tool-timeout", 1],
  ]);
  expect(await page.textContent("#events")).toContain('"command": "cat bom.csv"');
  // With the trial open at 1400 px, the table's numbers and stop column are in view (no sideways scroll).
  const fit = await page.evaluate(() => {
    const list = document.querySelector(".list")!;
    const stop = [...document.querySelectorAll("#trials thead th")].at(-1)!.getBoundingClientRect();
    return {
      right: stop.right,
      edge: list.getBoundingClientRect().right,
      scroll: list.scrollWidth - list.clientWidth,
    };
  });
  expect(fit.right).toBeLessThanOrEqual(fit.edge);
  expect(fit.scroll).toBe(0);
}

describe("kgate view", () => {
  it("serves a run on 127.0.0.1: filter, open a failed -A trial, see the diff; refreshes live", async () => {
    const paths = tempProject();
    const made = viewRun(paths);
    const { url, child } = await serve(paths.root, "paper");
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const opened = await openInChromium(url);
    try {
      const { page } = opened;
      await page.setViewportSize({ width: 1400, height: 900 });
      await openFailedMinusA(page);
      // t02's four cells side by side (one run: one row), each with its five trials.
      expect(await page.locator("#side-by-side td.column").count()).toBe(4);
      expect(await page.locator('#side-by-side .column[data-cell="frontier-A"] .chip').count()).toBe(5);
      // The runs compared: frontier+A passes 51 of 75 (the paper's row).
      expect(await page.textContent('#runs-compared tr[data-spec="frontier+A"] td.tally')).toContain("51/75");
      expect(await page.textContent("#status")).toContain("paper · 299 trial records");
      made.append();
      await page.waitForFunction(
        () => document.querySelector("#status")?.textContent?.includes("300 trial records"),
        null,
        {
          timeout: 15_000,
        },
      );
      expect(opened.problems).toEqual([]);
    } finally {
      await opened.close();
      child.kill("SIGTERM");
    }
    const code = await new Promise((resolve) =>
      child.exitCode === null ? child.on("exit", resolve) : resolve(child.exitCode),
    );
    expect(code).toBe(0);
  });

  it("writes a static folder that works from a zip extracted elsewhere, with the run gone", async () => {
    const paths = tempProject();
    const made = viewRun(paths);
    made.append();
    const work = tempDir("kgate-view-zip-");
    const site = path.join(work, "site");
    const result = kgate(["--root", paths.root, "view", "paper", "--out", site, "--json"]);
    expect(result.code).toBe(0);
    // index.html, app.js, app.css, data/runs.js and one detail file per trial row: 4 + 300.
    expect(JSON.parse(result.stdout)).toEqual({ out: site, files: 304, trials: 300 });
    const html = readFileSync(path.join(site, "index.html"), "utf8");
    expect(html).not.toMatch(/(src|href)="(\/|https?:)/);
    execFileSync("zip", ["-qr", path.join(work, "site.zip"), "."], { cwd: site });
    const elsewhere = path.join(work, "elsewhere");
    execFileSync("unzip", ["-q", path.join(work, "site.zip"), "-d", elsewhere]);
    renameSync(site, path.join(work, "gone"));
    renameSync(made.runDir, `${made.runDir}-gone`);
    expect(existsSync(made.runDir)).toBe(false);
    const opened = await openInChromium(pathToFileURL(path.join(elsewhere, "index.html")).href);
    try {
      await opened.page.setViewportSize({ width: 1400, height: 900 });
      await openFailedMinusA(opened.page);
      expect(await opened.page.textContent("#status")).toContain("300 trial records · exported");
      expect(opened.problems).toEqual([]);
    } finally {
      await opened.close();
    }
  });

  it("shows two runs of a task as a run x cell matrix, a pass in a must-fail cell apart from fails", async () => {
    const paths = tempProject();
    const made = viewRun(paths);
    made.append();
    // A second run: the same records under another run id.
    const second = `${made.runDir}-2`;
    cpSync(made.runDir, second, { recursive: true });
    const plan = path.join(second, "plan.json");
    writeFileSync(plan, readFileSync(plan, "utf8").replace('"runId": "paper"', '"runId": "paper-2"'));
    const site = path.join(paths.root, "site");
    expect(kgate(["--root", paths.root, "view", "paper", "paper-2", "--out", site]).code).toBe(0);
    const opened = await openInChromium(pathToFileURL(path.join(site, "index.html")).href);
    try {
      const { page } = opened;
      await page.waitForSelector("#trials tbody tr");
      await page.selectOption("#filter-task", "t03");
      // Rows: the two runs; columns: t03's four cells.
      const matrix = await page.$$eval("#side-by-side table.matrix tbody tr", (trs) =>
        trs.map((tr) => [
          tr.getAttribute("data-run"),
          [...tr.querySelectorAll("td.column")].map((td) => td.getAttribute("data-cell")),
        ]),
      );
      const cells = ["frontier+A", "frontier-A", "mid+A", "control"];
      expect(matrix).toEqual([
        ["paper", cells],
        ["paper-2", cells],
      ]);
      // t03's control trial #0 passed (the paper-shaped run's one control pass): it must have failed.
      const chip = page.locator('#side-by-side td[data-run="paper"][data-cell="control"] .chip').first();
      expect(await chip.textContent()).toBe("#0 ⚠ pass (must fail)");
      const fail = page.locator('#side-by-side td[data-run="paper"][data-cell="control"] .chip.fail').first();
      const style = (l: typeof chip) =>
        l.evaluate((e) => [getComputedStyle(e).backgroundColor, getComputedStyle(e).color].join(" "));
      expect(await style(chip)).not.toBe(await style(fail));
      expect(await page.locator("#trials td.outcome.unwanted").first().textContent()).toBe(
        "⚠ pass (must fail)",
      );
      expect(opened.problems).toEqual([]);
    } finally {
      await opened.close();
    }
  });
});
