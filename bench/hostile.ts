// Benchmark: the verifier's defences against hostile outputs (issue 14) stay linear. The CSV header
// check on headers of growing width, each against a same-run baseline (splitting the same header
// line on commas); the JSON depth check on growing nesting, against JSON.parse of the same text.
// A flat ratio column means linear; the quadratic check it replaced grew the ratio with the width.
//   npm run bench hostile      or      npx tsx bench/hostile.ts
import { CsvOutput } from "../src/task/schema.ts";
import { tooDeep } from "../src/verify/parse.ts";
import { tableFromCsv } from "../src/verify/table.ts";

const output = CsvOutput.parse({
  path: "output/result.csv",
  format: "csv",
  columns: [
    { name: "item", type: "string" },
    { name: "value", type: "number" },
  ],
  key: ["item"],
});

function best(fn: () => unknown, runs = 5): number {
  let min = Number.POSITIVE_INFINITY;
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    fn();
    min = Math.min(min, performance.now() - t);
  }
  return min;
}

export default async function main(): Promise<void> {
  process.stdout.write(
    "| header columns (distinct names) | baseline split ms | header check ms | ratio |\n|---|---|---|---|\n",
  );
  for (const width of [10_000, 50_000, 250_000]) {
    const text = `${Array.from({ length: width }, (_, i) => `c${i}`).join(",")}\n`;
    const base = best(() => text.split("\n")[0]!.split(","));
    const check = best(() => tableFromCsv(output, text));
    process.stdout.write(
      `| ${width} | ${base.toFixed(2)} | ${check.toFixed(2)} | ${(check / base).toFixed(1)} |\n`,
    );
  }
  process.stdout.write(
    "\n| JSON nesting | baseline JSON.parse ms | depth check ms | ratio |\n|---|---|---|---|\n",
  );
  for (const depth of [10_000, 50_000, 250_000]) {
    const text = `{"a":${"[".repeat(depth)}${"]".repeat(depth)}}`;
    const value = JSON.parse(text) as unknown;
    const base = best(() => JSON.parse(text));
    // A limit past the nesting, so the whole document is walked (at 200 it stops early).
    const check = best(() => tooDeep(value, depth + 1));
    process.stdout.write(
      `| ${depth} | ${base.toFixed(2)} | ${check.toFixed(2)} | ${(check / base).toFixed(2)} |\n`,
    );
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
