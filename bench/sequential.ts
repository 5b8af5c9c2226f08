// Benchmark (simulation): sequential screening against fixed n = 5 and n = 20, over tasks whose
// true pass probabilities are known. The real policy (which trials a plan still wants) and the real
// summary (clause verdicts, decision) run on synthetic records; only the agent is a coin.
//   npm run bench sequential      or      npx tsx bench/sequential.ts [tasks]
import { pathToFileURL } from "node:url";
import {
  CalibrationConfig,
  type ClauseInput,
  cellKey,
  fixedClause,
  type Plan,
  type PlannedCell,
  parseRequirement,
  type Requirement,
  sequentialClause,
  summarise,
  tallyRecords,
  wantedTrials,
} from "../src/calibrate/index.ts";
import { type TrialRecord, TrialRecord as TrialRecordSchema } from "../src/record/index.ts";

/** Deterministic uniform numbers (mulberry32). */
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

const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

const SPECS = CalibrationConfig.parse({}).cells.map((c) => ({
  name: c.name,
  agent: c.agent,
  condition: c.condition === "perturbed" ? ("variant:perturbed" as const) : c.condition,
  require: c.require ?? null,
  control: c.control,
}));

/** True pass probabilities per cell: clear of each clause's indifference zone. */
const POPULATION: Record<string, readonly number[]> = {
  "frontier+A": [0.2, 0.4, 0.8, 0.9, 1],
  "frontier-A": [0, 0, 0, 0.3, 0.5],
  "mid+A": [0, 0.1, 0.2, 0.6, 0.8],
  control: [0, 0, 0, 0.4],
};

function plan(mode: "fixed" | "sequential", n: number, alpha = 0.05, cap = 20): Plan {
  const sequential = CalibrationConfig.parse({
    sequential: { enabled: mode === "sequential", alpha, beta: alpha, cap },
  }).sequential;
  const cells: PlannedCell[] = SPECS.map((s) => ({
    key: cellKey("t", s.agent, s.condition),
    task: "t",
    spec: s.name,
    label: s.name,
    agent: s.agent,
    condition: s.condition,
    require: s.require,
    control: s.control,
  }));
  const digests = {
    task: "t",
    instruction: "i",
    environment: "e",
    artefact: "a",
    variants: { perturbed: "p" },
  };
  return {
    planVersion: 1,
    runId: "sim",
    createdAt: new Date(0).toISOString(),
    mode,
    n,
    sequential,
    infraRetries: 0,
    curtail: false,
    strict: false,
    tasks: [{ id: "t", title: "t", gate: "convention", digests, notes: [] }],
    agents: ["frontier", "mid"].map((name) => ({
      name,
      digest: name,
      harness: "sim",
      model: null,
      provider: "sim",
    })),
    specs: SPECS,
    cells,
    provenance: null,
  };
}

const TEMPLATE: TrialRecord = TrialRecordSchema.parse({
  recordVersion: 1,
  runId: "sim",
  trialId: "",
  index: 0,
  attempt: 1,
  task: { id: "t", digests: { task: "t", instruction: "i", environment: "e" } },
  condition: "+A",
  artefactDigest: "a",
  fileSetDigest: "f",
  agent: { name: "frontier", digest: "frontier", harness: "sim", model: null },
  startedAt: new Date(0).toISOString(),
  finishedAt: new Date(0).toISOString(),
  phases: {},
  usage: {
    inputTokens: 0,
    outputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    modelCalls: 0,
    costUsd: null,
  },
  stopReason: "finish",
  outputs: [],
  verdict: { status: "fail", reward: 0, score: 0, criteria: [], attribution: "other" },
  error: null,
  trajectory: null,
  artefactOpened: null,
  canaryLeak: null,
});

function record(cell: PlannedCell, index: number, pass: boolean): TrialRecord {
  const artefact = cell.condition === "-A" ? null : cell.condition === "+A" ? "a" : "p";
  return {
    ...TEMPLATE,
    trialId: `${cell.key}#${index}`,
    index,
    condition: cell.condition,
    artefactDigest: artefact,
    agent: { ...TEMPLATE.agent, name: cell.agent, digest: cell.agent },
    verdict: pass
      ? { status: "pass", reward: 1, score: 1, criteria: [], attribution: null }
      : TEMPLATE.verdict,
  };
}

/** Runs one task to its decision under a plan; returns the decision and the trials it took. */
function calibrate(p: Plan, truth: Record<string, number>, r: () => number) {
  const records: TrialRecord[] = [];
  for (;;) {
    const wanted = wantedTrials(p, tallyRecords(p, records), "t");
    if (wanted.length === 0) break;
    for (const w of wanted) records.push(record(w.cell, w.index, r() < truth[w.cell.label]!));
  }
  return { decision: summarise(p, records).tasks[0]!.decision, trials: records.length };
}

/** The right decision from the true probabilities: discard if a rule clause fails, revise if a control does. */
function truthOf(truth: Record<string, number>): "retain" | "revise" | "discard" {
  const holds = (s: (typeof SPECS)[number]) =>
    s.require!.op === ">=" ? truth[s.name]! >= s.require!.threshold : truth[s.name]! <= s.require!.threshold;
  if (SPECS.some((s) => !s.control && !holds(s))) return "discard";
  return SPECS.every(holds) ? "retain" : "revise";
}

export interface MethodResult {
  method: string;
  trialsPerTask: number;
  correct: number;
  /** A definite wrong call: retain when it should not, or discard when it should not. */
  wrong: number;
  /** Revise where the truth is clear-cut (a retain or a discard left for a human). */
  undecided: number;
}

function evaluate(method: string, p: Plan, tasks: Record<string, number>[], seed: number): MethodResult {
  const r = rng(seed);
  let trials = 0;
  let correct = 0;
  let wrong = 0;
  let undecided = 0;
  for (const truth of tasks) {
    const result = calibrate(p, truth, r);
    const expected = truthOf(truth);
    trials += result.trials;
    if (result.decision === expected) correct += 1;
    else if (result.decision === "revise") undecided += 1;
    else wrong += 1;
  }
  const n = tasks.length;
  return {
    method,
    trialsPerTask: trials / n,
    correct: correct / n,
    wrong: wrong / n,
    undecided: undecided / n,
  };
}

export interface SequentialBench {
  tasks: number;
  results: MethodResult[];
  /** The sequential setting matched to fixed n = 20's error rate. */
  matched: MethodResult;
  trialsSavedVsFixed20: number;
  correctGainVsFixed5: number;
}

export async function benchSequential(taskCount = 2000, seed = 20261130): Promise<SequentialBench> {
  const r = rng(seed);
  const tasks = Array.from({ length: taskCount }, () =>
    Object.fromEntries(Object.entries(POPULATION).map(([cell, ps]) => [cell, pick(r, ps)])),
  );
  const fixed5 = evaluate("fixed n = 5 (paper)", plan("fixed", 5), tasks, seed + 1);
  const fixed20 = evaluate("fixed n = 20", plan("fixed", 20), tasks, seed + 1);
  const seq = evaluate("sequential (default: 0.05, cap 20)", plan("sequential", 5), tasks, seed + 1);
  const results = [fixed5, fixed20, seq];
  // The cheapest sequential setting whose error rate (1 - correct) is no worse than fixed n = 20's.
  let matched = 1 - seq.correct <= 1 - fixed20.correct ? seq : undefined;
  for (const [alpha, cap] of [
    [0.05, 30],
    [0.05, 40],
    [0.025, 40],
    [0.01, 60],
  ] as const) {
    if (matched) break;
    const result = evaluate(
      `sequential (${alpha}, cap ${cap})`,
      plan("sequential", 5, alpha, cap),
      tasks,
      seed + 1,
    );
    results.push(result);
    if (1 - result.correct <= 1 - fixed20.correct) matched = result;
  }
  matched ??= results.at(-1)!;
  return {
    tasks: taskCount,
    results,
    matched,
    trialsSavedVsFixed20: 1 - matched.trialsPerTask / fixed20.trialsPerTask,
    correctGainVsFixed5: seq.correct / fixed5.correct,
  };
}

/** A pass rate inside a clause's indifference zone, where no method can be sure. */
export interface ZoneCase {
  clause: string;
  p: number;
  /** What the true p makes of the clause: met (p = 0.6 meets ">= 0.6") or not (p = 0.1 misses "= 0"). */
  truth: "met" | "not-met";
}

export const ZONE_CASES: readonly ZoneCase[] = [
  { clause: ">= 0.6", p: 0.6, truth: "met" },
  { clause: ">= 0.6", p: 0.5, truth: "not-met" },
  { clause: "= 0", p: 0.1, truth: "not-met" },
  { clause: "= 0", p: 0.05, truth: "not-met" },
];

export interface ZoneResult {
  case: ZoneCase;
  method: string;
  met: number;
  notMet: number;
  undecided: number;
  trialsPerCell: number;
}

/** One cell of one clause, judged by the real clause functions: fixed n, or sequential from n = 5 to the cap. */
function judgeCell(
  req: Requirement,
  p: number,
  method: "fixed5" | "fixed20" | "sequential",
  r: () => number,
) {
  const input = (passes: number, runs: number): ClauseInput => ({
    cell: "c",
    requirement: req,
    control: false,
    passes,
    runs,
    excluded: 0,
  });
  const settings = CalibrationConfig.parse({ sequential: { enabled: true } }).sequential;
  let passes = 0;
  let runs = 0;
  const draw = () => {
    runs += 1;
    if (r() < p) passes += 1;
  };
  if (method !== "sequential") {
    const n = method === "fixed5" ? 5 : 20;
    while (runs < n) draw();
    return { verdict: fixedClause(input(passes, runs)).verdict, runs };
  }
  while (runs < 5) draw();
  for (;;) {
    const result = sequentialClause(input(passes, runs), settings, settings.cap);
    if (result.verdict !== "undecided" || runs >= settings.cap) return { verdict: result.verdict, runs };
    draw();
  }
}

/** Outcomes for pass rates inside the indifference zones: how often each method calls the clause met. */
export function benchZones(cells = 20000, seed = 20261201): ZoneResult[] {
  const out: ZoneResult[] = [];
  for (const zone of ZONE_CASES) {
    const req = parseRequirement(zone.clause) as Requirement;
    for (const [method, label] of [
      ["fixed5", "fixed n = 5 (paper)"],
      ["fixed20", "fixed n = 20"],
      ["sequential", "sequential (0.05, cap 20)"],
    ] as const) {
      const r = rng(seed);
      const counts = { met: 0, "not-met": 0, undecided: 0 };
      let trials = 0;
      for (let i = 0; i < cells; i++) {
        const judged = judgeCell(req, zone.p, method, r);
        counts[judged.verdict] += 1;
        trials += judged.runs;
      }
      out.push({
        case: zone,
        method: label,
        met: counts.met / cells,
        notMet: counts["not-met"] / cells,
        undecided: counts.undecided / cells,
        trialsPerCell: trials / cells,
      });
    }
  }
  return out;
}

export function formatZones(results: readonly ZoneResult[], cells = 20000): string {
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  return [
    `inside the indifference zones: one cell, ${cells} simulated cells per row (the clause's true verdict in brackets)`,
    "clause       p     method                      met  not met  undecided  trials/cell",
    ...results.map(
      (z) =>
        `${`${z.case.clause} [${z.case.truth}]`.padEnd(18)} ${String(z.case.p).padEnd(5)} ${z.method.padEnd(26)} ` +
        `${pct(z.met).padStart(6)}  ${pct(z.notMet).padStart(7)}  ${pct(z.undecided).padStart(9)}  ${z.trialsPerCell.toFixed(1).padStart(11)}`,
    ),
  ].join("\n");
}

export function formatSequential(b: SequentialBench): string {
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  const lines = [
    `sequential screening, ${b.tasks} simulated tasks (true pass probabilities clear of the indifference zones)`,
    "method (sequential: alpha = beta, cap)  trials/task  correct  wrong  revise",
    ...b.results.map(
      (r) =>
        `${r.method.padEnd(38)} ${r.trialsPerTask.toFixed(1).padStart(11)}  ${pct(r.correct).padStart(7)}  ${pct(r.wrong).padStart(5)}  ${pct(r.undecided).padStart(6)}`,
    ),
    `at fixed n = 20's error rate (${b.matched.method}): ${pct(b.trialsSavedVsFixed20)} fewer trials than fixed n = 20`,
    `default sequential (alpha = beta = 0.05, cap 20) decides correctly ${b.correctGainVsFixed5.toFixed(2)}x as often as fixed n = 5`,
  ];
  return lines.join("\n");
}

/** `npm run bench sequential` (bench/run.ts calls this). */
export default async function main(tasks = 2000): Promise<void> {
  const started = performance.now();
  const result = await benchSequential(tasks);
  console.log(formatSequential(result));
  console.log("");
  console.log(formatZones(benchZones()));
  console.log(`(${((performance.now() - started) / 1000).toFixed(1)} s)`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href)
  await main(Number(process.argv[2] ?? 2000));
