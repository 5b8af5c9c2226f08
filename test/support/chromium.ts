// Test support: Debian's headless Chromium through playwright-core (no browser download), with a
// fresh profile, no background networking, and every console error or failed request collected.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { SETUP_STEP } from "./requirements.ts";

export const CHROMIUM = process.env.KGATE_CHROMIUM ?? "/usr/bin/chromium";

export interface OpenedPage {
  page: Page;
  /** Console errors and warnings, uncaught page errors, failed requests. */
  problems: string[];
  close(): Promise<void>;
}

export async function openInChromium(url: string): Promise<OpenedPage> {
  if (!existsSync(CHROMIUM))
    throw new Error(`no Chromium at ${CHROMIUM} for the browser tests: ${SETUP_STEP}`);
  const profile = mkdtempSync(path.join(tmpdir(), "kgate-chromium-"));
  const context: BrowserContext = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("requestfailed", (r) => problems.push(`request failed: ${r.url()}`));
  await page.goto(url, { waitUntil: "load" });
  return {
    page,
    problems,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
