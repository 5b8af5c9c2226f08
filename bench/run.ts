// `npm run bench [name...]`: runs every bench/<topic>.ts (or those named). A module that
// default-exports an async function is called in this process; any other is run as a script.
// A failing benchmark is reported and the others still run; the exit code is 1 if any failed.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const wanted = process.argv.slice(2);
const files = readdirSync(import.meta.dirname)
  .filter((f) => f.endsWith(".ts") && f !== "run.ts")
  .filter((f) => wanted.length === 0 || wanted.includes(f.slice(0, -3)))
  .sort();

let failed = 0;
for (const file of files) {
  const abs = path.join(import.meta.dirname, file);
  process.stdout.write(`\n## bench/${file}\n\n`);
  const started = performance.now();
  const module = (await import(pathToFileURL(abs).href)) as { default?: unknown };
  if (typeof module.default === "function") {
    try {
      await (module.default as () => Promise<void>)();
    } catch (err) {
      failed++;
      process.stdout.write(`failed: ${(err as Error).stack ?? String(err)}\n`);
    }
  } else {
    const run = spawnSync(process.execPath, ["--import", "tsx", abs], { stdio: "inherit" });
    if (run.status !== 0) failed++;
  }
  process.stdout.write(`\n(${((performance.now() - started) / 1000).toFixed(1)} s)\n`);
}
process.exitCode = failed > 0 ? 1 : 0;
