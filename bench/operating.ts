// Operating characteristics of sequential screening, exactly (no simulation): for each clause and
// true pass probability p, a dynamic programme over (passes, valid trials) runs the shipped clause
// rule (sequentialClause) with the default settings: n trials first, then one at a time while the
// clause is undecided, up to the cap. It gives P(met), P(not met), P(undecided at the cap) and the
// expected valid trials per cell. docs/calibrate.md carries the table this prints (a test checks it).
//   npm run bench operating      or      npx tsx bench/operating.ts
import { pathToFileURL } from "node:url";
import {
  CalibrationConfig,
  parseRequirement,
  type Requirement,
  sequentialClause,
} from "../src/calibrate/index.ts";

export interface Operating {
  met: number;
  notMet: number;
  undecided: number;
  trials: number;
}

/** The exact stopping distribution of one cell under the shipped sequential rule. */
export function operating(req: Requirement, p: number, config = CalibrationConfig.parse({})): Operating {
  const s = config.sequential;
  const first = config.n;
  const cap = Math.max(first, s.cap);
  const out: Operating = { met: 0, notMet: 0, undecided: 0, trials: 0 };
  // mass[k]: probability of k passes after `runs` valid trials, still screening.
  let mass = [1];
  for (let runs = 0; ; runs++) {
    const next = new Array<number>(runs + 2).fill(0);
    for (let k = 0; k <= runs; k++) {
      const m = mass[k] ?? 0;
      if (m === 0) continue;
      const input = { cell: "c", requirement: req, control: false, passes: k, runs, excluded: 0 };
      const verdict = runs === 0 ? "undecided" : sequentialClause(input, s, cap).verdict;
      const stop = runs >= first && (verdict !== "undecided" || runs >= cap);
      if (stop) {
        out.trials += m * runs;
        if (verdict === "met") out.met += m;
        else if (verdict === "not-met") out.notMet += m;
        else out.undecided += m;
        continue;
      }
      next[k + 1]! += m * p;
      next[k]! += m * (1 - p);
    }
    if (next.every((m) => m === 0)) return out;
    mass = next;
  }
}

const ROWS: [string, number[]][] = [
  [">= 0.6", [0.3, 0.45, 0.5, 0.6, 0.7, 0.75, 0.9]],
  ["<= 0.4", [0.1, 0.25, 0.3, 0.4, 0.5, 0.55, 0.7]],
  ["= 0", [0, 0.01, 0.05, 0.1, 0.2, 0.3]],
];

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

/** The Markdown table of docs/calibrate.md. */
export function operatingTable(): string {
  const lines = [
    "| clause | true p | P(met) | P(not met) | P(undecided at cap) | expected trials per cell |",
    "|---|---|---|---|---|---|",
  ];
  for (const [text, ps] of ROWS) {
    const req = parseRequirement(text) as Requirement;
    for (const p of ps) {
      const o = operating(req, p);
      lines.push(
        `| ${text} | ${p} | ${pct(o.met)} | ${pct(o.notMet)} | ${pct(o.undecided)} | ${o.trials.toFixed(1)} |`,
      );
    }
  }
  return lines.join("\n");
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) console.log(operatingTable());
