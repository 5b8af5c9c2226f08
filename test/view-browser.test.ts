// `kgate view` in Debian's headless Chromium (playwright-core, no browser download): served on
// 127.0.0.1, filter to failed -A trials, open one, see its diff, attribution, probe and trajectory,
// the task's cells side by side, live refresh when a record is appended; and the --out folder
// zipped, extracted elsewhere and opened from file:// with the run directory gone. No console error.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, renameSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { type OpenedPage, openInChromium } from "./support/chromium.ts";
import { KGATE_BIN, kgate } from "./support/cli.ts";
import { tempProject } from "./support/project.ts";
import { SHOWN_DIFF, SHOWN_TRIAL, viewRun } from "./support/view-run.ts";

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
  expect(await page.textContent("#diff")).toBe(SHOWN_DIFF);
  expect(await page.textContent("#attribution")).toBe("default-convention");
  expect(await page.textContent("#verdict-status")).toBe("fail (reward 0, score 0.00)");
  expect(await page.textContent("#probes")).toContain("10% flat");
  const events = await page.$$eval("#events li.event", (lis) => lis.map((li) => li.className));
  expect(events).toEqual([
    "event model",
    "event tool-call",
    "event tool-result",
    "event note",
    "event error error",
  ]);
  expect(await page.textContent("#events")).toContain('"command": "cat bom.csv"');
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
      await openFailedMinusA(page);
      // t02's four cells side by side, each with its five trials.
      expect(await page.locator("#side-by-side .column").count()).toBe(4);
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
    const work = mkdtempSync(path.join(tmpdir(), "kgate-view-zip-"));
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
      await openFailedMinusA(opened.page);
      expect(await opened.page.textContent("#status")).toContain("300 trial records · exported");
      expect(opened.problems).toEqual([]);
    } finally {
      await opened.close();
    }
  });
});
