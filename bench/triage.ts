// Benchmark: the triage scores of one plan's pool, the knapsack oracle plus the 1,000-permutation
// random baseline, for 500 units with unit values and B = 10^6 tokens (target: under 1 s), and the
// exact baseline of a 9-unit pool (all 9! orders), reported as ratios to a plain sort of the 500
// costs measured in the same run.
//   npm run bench triage      or      npx tsx bench/triage.ts
import { pathToFileURL } from "node:url";
import { knapsackByValueSums, oracleValue, randomBaseline, type ScoredUnit } from "../src/triage/index.ts";

/** Deterministic uniform numbers (mulberry32), for the synthetic pool only. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** 500 units, costs uniform in [1000, 7000) tokens (sum ~2e6, so B = 1e6 binds), 70% correct. */
function pool(n: number, seed: number): ScoredUnit[] {
  const r = rng(seed);
  return Array.from({ length: n }, (_, i) => ({
    id: `u${i}`,
    cost: 1000 + Math.floor(r() * 6000),
    correct: r() < 0.7,
    value: 1,
  }));
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function time(fn: () => void, repeats: number): number {
  const ms: number[] = [];
  for (let i = 0; i < repeats; i++) {
    const started = performance.now();
    fn();
    ms.push(performance.now() - started);
  }
  return median(ms);
}

export default async function bench(): Promise<void> {
  const units = pool(500, 1);
  const B = 1_000_000;
  const repeats = 7;
  let sink = 0;
  const sortMs = time(() => {
    sink += Float64Array.from(units.map((u) => u.cost)).sort()[0]!;
  }, repeats * 20);
  const scoreMs = time(() => {
    sink += oracleValue(units, B) + randomBaseline(units, B, { permutations: 1000, seed: 0 }).value;
  }, repeats);
  const nine = pool(9, 2);
  const nineB = Math.floor(0.5 * nine.reduce((s, u) => s + u.cost, 0));
  const exactMs = time(() => {
    sink += randomBaseline(nine, nineB).value;
  }, repeats);
  const dpMs = time(() => {
    sink += knapsackByValueSums(
      units.filter((u) => u.correct),
      B,
    );
  }, repeats);
  const total = units.reduce((s, u) => s + u.cost, 0);
  console.log(`pool: 500 units, unit values, sum of costs ${total}, B = ${B}; median of ${repeats} runs`);
  console.log(`V_oracle ${oracleValue(units, B)}, V_random ${randomBaseline(units, B).value.toFixed(3)}`);
  console.log(`| step | ms | ratio to a plain sort |`);
  console.log(`|---|---|---|`);
  console.log(`| plain sort of the 500 costs (baseline) | ${sortMs.toFixed(3)} | 1 |`);
  console.log(
    `| oracle (ascending cost) + 1,000-permutation baseline | ${scoreMs.toFixed(2)} | ${(scoreMs / sortMs).toFixed(0)} |`,
  );
  console.log(
    `| oracle by DP over value sums (check) | ${dpMs.toFixed(2)} | ${(dpMs / sortMs).toFixed(0)} |`,
  );
  console.log(
    `| exact baseline of 9 units (362,880 orders; B = half their costs) | ${exactMs.toFixed(2)} | ${(exactMs / sortMs).toFixed(0)} (${(exactMs / scoreMs).toFixed(2)} x the 500-unit score) |`,
  );
  console.log(
    `target: oracle + baseline under 1000 ms: ${scoreMs < 1000 ? "met" : "NOT met"} (${sink > 0 ? "ok" : ""})`,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await bench();
