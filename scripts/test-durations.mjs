// Writes test/durations.json (seconds per test file) from a vitest JSON report, for the sequencer
// that runs the longest files first on a machine with no vitest cache (a fresh clone, CI):
//   npx vitest run --reporter=json --outputFile=times.json && node scripts/test-durations.mjs times.json
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

const report = process.argv[2];
if (!report) {
  console.error("usage: node scripts/test-durations.mjs <vitest JSON report>");
  process.exit(2);
}
const root = path.resolve(import.meta.dirname, "..");
const { testResults } = JSON.parse(readFileSync(report, "utf8"));
const seconds = Object.fromEntries(
  testResults
    .map((t) => [path.relative(root, t.name), Math.round((t.endTime - t.startTime) / 100) / 10])
    .sort(([a], [b]) => (a < b ? -1 : 1)),
);
writeFileSync(path.join(root, "test", "durations.json"), `${JSON.stringify(seconds, null, 2)}\n`);
console.log(`test/durations.json: ${Object.keys(seconds).length} files`);
