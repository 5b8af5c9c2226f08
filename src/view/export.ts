// `kgate view --out <dir>`: the viewer as a self-contained static folder (page, bundle, style, the
// index and every trial's detail with its trajectory), linked relatively, so it can be zipped and
// opened elsewhere from file:// or any static server.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { ViewData } from "./data.ts";
import { asset, INDEX_HTML, indexScript, trialScript } from "./site.ts";

export function exportSite(data: ViewData, outDir: string): { files: number } {
  mkdirSync(path.join(outDir, "data", "trial"), { recursive: true });
  writeFileSync(path.join(outDir, "index.html"), INDEX_HTML);
  writeFileSync(path.join(outDir, "app.js"), asset("app.js"));
  writeFileSync(path.join(outDir, "app.css"), asset("app.css"));
  writeFileSync(path.join(outDir, "data", "runs.js"), indexScript(data.index));
  let files = 4;
  for (const trial of data.index.trials) {
    const detail = data.detail(trial.key);
    if (!detail) continue;
    writeFileSync(path.join(outDir, "data", "trial", `${trial.key}.js`), trialScript(detail));
    files += 1;
  }
  return { files };
}
