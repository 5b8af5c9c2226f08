// `npm run bench`: runs every bench/<topic>.ts that default-exports an async function, in name order.
// `npm run bench -- sandbox` runs only the named topics. Figures are printed by each benchmark.
import { readdirSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const only = process.argv.slice(2);
const files = readdirSync(import.meta.dirname)
  .filter((f) => f.endsWith(".ts") && f !== "run.ts")
  .filter((f) => only.length === 0 || only.includes(path.basename(f, ".ts")))
  .sort();

let failed = 0;
for (const file of files) {
  const mod = (await import(pathToFileURL(path.join(import.meta.dirname, file)).href)) as {
    default?: unknown;
  };
  if (typeof mod.default !== "function") continue;
  process.stdout.write(`\n## ${path.basename(file, ".ts")}\n\n`);
  const started = performance.now();
  try {
    await (mod.default as () => Promise<void>)();
    process.stdout.write(`\n(${((performance.now() - started) / 1000).toFixed(1)} s)\n`);
  } catch (err) {
    failed++;
    process.stdout.write(`failed: ${(err as Error).stack ?? String(err)}\n`);
  }
}
process.exitCode = failed > 0 ? 1 : 0;
