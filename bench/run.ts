// `npm run bench [name...]`: runs every bench/<topic>.ts (or those named). A module that
// default-exports an async function is called in this process; any other is run as a script.
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
  process.stdout.write(`\n## bench/${file}\n`);
  const module = (await import(pathToFileURL(abs).href)) as { default?: unknown };
  if (typeof module.default === "function") {
    await (module.default as () => Promise<void>)();
    continue;
  }
  const run = spawnSync(process.execPath, ["--import", "tsx", abs], { stdio: "inherit" });
  if (run.status !== 0) failed++;
}
process.exitCode = failed > 0 ? 1 : 0;
