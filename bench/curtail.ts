// Benchmark: what curtailment saves, in expectation, and how close `--estimate` comes. On the
// paper-shaped batch (bench/support/paper-batch.ts: 15 tasks, n = 5, each task's cells passing at its
// own rates), the expected number of trials is computed exactly (no sampling): with no curtailment,
// with kgate's order (the engine's own calls, test/support/curtail-expectation.ts), and with the best
// order the rule allows (a dynamic programme that knows the true rates). Reported: kgate's saving
// against the best order's (target: at least 0.9 of it), the same with the default cells' control,
// and (off the paper's shape, no target) with leaky -A cells.
// Cross-checks through the engine: every outcome sequence of each task (those of positive probability)
// run curtailed and in full, weighted by its probability, gives the same expectation, and the same
// decision and flag in both runs. Then the estimate made from one full run's records against a second
// identical run (target: within 15%).
//   npm run bench curtail      or      npx tsx bench/curtail.ts
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  buildPlan,
  CalibrationConfig,
  type CellRunner,
  estimateCalibration,
  type Plan,
  runCalibration,
  summarise,
} from "../src/calibrate/index.ts";
import { projectPaths } from "../src/project.ts";
import type { LoadedTask } from "../src/task/index.ts";
import { agentInfo, draw, recordFor, scaffoldTasks } from "../test/support/calibrate-fixtures.ts";
import { type Expectation, taskExpectations } from "../test/support/curtail-expectation.ts";
import { PAPER_BATCH, PAPER_CELLS, PAPER_CONTROL, type PaperTask, ratesOf } from "./support/paper-batch.ts";

const N = 5;
/** Mean USD of one trial per cell: frontier sessions are long, -A ones shorter, mid ones cheap. */
const MEAN_COST: Record<string, number> = {
  "frontier+A": 0.6,
  "frontier-A": 0.4,
  "mid+A": 0.08,
  control: 0.6,
};
const TARGET = 0.9;
const out = (line: string) => process.stdout.write(`${line}\n`);

type Cells = readonly { name: string }[];

function planOf(tasks: LoadedTask[], cells: Cells, curtail: boolean, runId = "bench"): Plan {
  return buildPlan({
    runId,
    config: CalibrationConfig.parse({ n: N, cells: [...cells], curtail }),
    tasks,
    resolveAgent: (name) => agentInfo(name, name === "frontier" ? "anthropic" : "openai"),
  });
}

const cost = (e: Expectation) => Object.entries(e.perCell).reduce((s, [c, k]) => s + k * MEAN_COST[c]!, 0);
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

/** Every outcome sequence of positive probability: per cell n letters (P/F), with the sequence's probability. */
function* sequences(rates: Record<string, number>, labels: readonly string[]) {
  const choices = labels.map((label) => {
    const r = rates[label]!;
    if (r === 0 || r === 1) return [{ letters: (r === 1 ? "P" : "F").repeat(N), p: 1 }];
    return Array.from({ length: 2 ** N }, (_, m) => {
      const letters = [...Array(N).keys()].map((i) => ((m >> i) & 1 ? "P" : "F")).join("");
      const passes = [...letters].filter((l) => l === "P").length;
      return { letters, p: r ** passes * (1 - r) ** (N - passes) };
    });
  });
  const picks = choices.map(() => 0);
  for (;;) {
    const script = Object.fromEntries(labels.map((l, i) => [l, choices[i]![picks[i]!]!.letters]));
    yield { script, p: labels.reduce((s, _, i) => s * choices[i]![picks[i]!]!.p, 1) };
    let i = 0;
    while (i < picks.length && ++picks[i]! >= choices[i]!.length) picks[i++] = 0;
    if (i === picks.length) return;
  }
}

/** One task's outcome sequences through the engine: expected trials curtailed, and whether every decision and flag agree. */
async function throughEngine(root: string, task: LoadedTask, cells: Cells, rates: Record<string, number>) {
  const plans = { curtailed: planOf([task], cells, true), full: planOf([task], cells, false) };
  const runDir = path.join(root, "engine-runs");
  mkdirSync(runDir, { recursive: true });
  const tasks = new Map([[task.id, task]]);
  let expected = 0;
  let runs = 0;
  let mismatches = 0;
  for (const { script, p } of sequences(
    rates,
    cells.map((c) => c.name),
  )) {
    const runner: CellRunner = async (job) => {
      const pass = script[job.cell.label]![job.index] === "P";
      return recordFor(job, { outcome: pass ? "pass" : "fail", attribution: "other" });
    };
    const run = (plan: Plan) => runCalibration({ plan, runDir, tasks, runner, records: [], concurrency: 1 });
    const [a, b] = [await run(plans.curtailed), await run(plans.full)];
    const [x, y] = [
      summarise(plans.curtailed, a.written).tasks[0]!,
      summarise(plans.full, b.written).tasks[0]!,
    ];
    if (x.decision !== y.decision || x.borderline.join(";") !== y.borderline.join(";")) mismatches += 1;
    expected += p * a.written.length;
    runs += 1;
  }
  return { expected, runs, mismatches };
}

/** The batch's expectations, per task and in total, and the engine's cross-check per distinct task. */
async function batch(root: string, tasks: LoadedTask[], cells: Cells, title: string) {
  const plan = planOf(tasks, cells, true);
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const total = { full: 0, kgate: 0, best: 0, fullUsd: 0, kgateUsd: 0, bestUsd: 0 };
  const checked = new Map<string, { expected: number; runs: number; mismatches: number }>();
  out(`\n${title}`);
  out("| tasks | rates (frontier+A, frontier-A, mid+A) | decision | full | kgate | best order |");
  out("|---|---|---|---|---|---|");
  const rows = new Map<string, { ids: string[]; t: PaperTask; e: ReturnType<typeof taskExpectations> }>();
  for (const t of PAPER_BATCH) {
    const rates = ratesOf(t);
    const e = taskExpectations(plan, byId, t.id, rates);
    total.full += e.full.trials;
    total.kgate += e.kgate.trials;
    total.best += e.best.trials;
    total.fullUsd += cost(e.full);
    total.kgateUsd += cost(e.kgate);
    total.bestUsd += cost(e.best);
    const profile = JSON.stringify(t.passes);
    const row = rows.get(profile) ?? { ids: [], t, e };
    row.ids.push(t.id);
    rows.set(profile, row);
    if (!checked.has(profile)) checked.set(profile, await throughEngine(root, byId.get(t.id)!, cells, rates));
    const engine = checked.get(profile)!;
    if (Math.abs(engine.expected - e.kgate.trials) > 1e-9)
      throw new Error(`${t.id}: the engine's expectation ${engine.expected} differs from ${e.kgate.trials}`);
    if (engine.mismatches > 0)
      throw new Error(`${t.id}: curtailment changed ${engine.mismatches} decision(s) or flag(s)`);
  }
  for (const { ids, t, e } of rows.values()) {
    const r = ratesOf(t);
    const rates = `${r["frontier+A"]}, ${r["frontier-A"]}, ${r["mid+A"]}`;
    out(
      `| ${ids[0]}${ids.length > 1 ? `-${ids.at(-1)}` : ""} | ${rates} | ${t.decision} | ${e.full.trials} | ${e.kgate.trials.toFixed(2)} | ${e.best.trials.toFixed(2)} |`,
    );
  }
  const saved = { kgate: 1 - total.kgate / total.full, best: 1 - total.best / total.full };
  const ratio = saved.kgate / saved.best;
  out(
    `expected trials: full ${total.full}, kgate ${total.kgate.toFixed(2)} (${pct(saved.kgate)} fewer), ` +
      `best order ${total.best.toFixed(2)} (${pct(saved.best)} fewer); kgate's saving is ${ratio.toFixed(3)} of the best's (target >= ${TARGET})`,
  );
  out(
    `expected cost: full $${total.fullUsd.toFixed(2)}, kgate $${total.kgateUsd.toFixed(2)} (${pct(1 - total.kgateUsd / total.fullUsd)} less), ` +
      `best order $${total.bestUsd.toFixed(2)} (${pct(1 - total.bestUsd / total.fullUsd)} less)`,
  );
  const engineRuns = [...checked.values()].reduce((s, c) => s + c.runs, 0);
  out(
    `through the engine: ${engineRuns} outcome sequences of the ${checked.size} distinct tasks, each curtailed and in full: ` +
      "the same expectation, and the same decision and flag in every one",
  );
  if (ratio < TARGET)
    throw new Error(`kgate's saving is ${ratio.toFixed(3)} of the best order's, below ${TARGET}`);
}

/**
 * Off the paper's shape: every task's -A cell passing at 0.1 or 0.3 (leaky tasks), where a first -A
 * trial would pay off more often than the prior expects. Expectations only (no engine cross-check).
 */
function leaky(tasks: LoadedTask[]) {
  const plan = planOf(tasks, PAPER_CELLS, true);
  const byId = new Map(tasks.map((t) => [t.id, t]));
  out("\noff the paper's shape: the same batch with every task's frontier-A passing at p (leaks)");
  out("| p(frontier-A) | full | kgate | best order | kgate's saving / best's |");
  out("|---|---|---|---|---|");
  for (const leak of [0.1, 0.3]) {
    const sums = { full: 0, kgate: 0, best: 0 };
    for (const t of PAPER_BATCH) {
      const e = taskExpectations(plan, byId, t.id, { ...ratesOf(t), "frontier-A": leak });
      sums.full += e.full.trials;
      sums.kgate += e.kgate.trials;
      sums.best += e.best.trials;
    }
    const ratio = (sums.full - sums.kgate) / (sums.full - sums.best);
    out(
      `| ${leak} | ${sums.full} | ${sums.kgate.toFixed(2)} | ${sums.best.toFixed(2)} | ${ratio.toFixed(3)} |`,
    );
  }
}

/** --estimate from one full run's records, against a second identical full run (other cost draws). */
async function estimateCheck(root: string, tasks: LoadedTask[]) {
  const run = async (runId: string, seed: number) => {
    const plan = planOf(tasks, PAPER_CELLS, false, runId);
    const runDir = path.join(root, "runs", runId);
    mkdirSync(runDir, { recursive: true });
    const passes = new Map(PAPER_BATCH.map((t) => [t.id, t.passes]));
    const runner: CellRunner = async (job) => {
      // the first k of a cell's 5 trials pass, k its passes; cost: the cell's mean x [0.6, 1.4)
      const pass = job.index < passes.get(job.task.id)![job.cell.label]!;
      const costUsd = MEAN_COST[job.cell.label]! * (0.6 + 0.8 * draw(seed, `${job.cell.key}#${job.index}`));
      return recordFor(job, { outcome: pass ? "pass" : "fail", attribution: "other", costUsd });
    };
    const result = await runCalibration({
      plan,
      runDir,
      tasks: new Map(tasks.map((t) => [t.id, t])),
      runner,
      records: [],
      concurrency: 1,
    });
    return {
      plan,
      records: result.written,
      cost: result.written.reduce((s, r) => s + (r.usage.costUsd ?? 0), 0),
    };
  };
  const first = await run("first", 1);
  const estimate = estimateCalibration({
    cells: first.plan.cells,
    tasks: new Map(tasks.map((t) => [t.id, t])),
    agents: new Map(first.plan.agents.map((a) => [a.name, { digest: a.digest, caps: null }])),
    trialsPerCell: N,
    records: first.records,
  });
  const second = await run("second", 2);
  const expected = estimate.totalUsd!.expected;
  out(
    `\n--estimate from run 1 (${first.records.length} records): $${expected.toFixed(2)} ` +
      `($${estimate.totalUsd!.low.toFixed(2)}-$${estimate.totalUsd!.high.toFixed(2)}); a second full run spent ` +
      `$${second.cost.toFixed(2)} (estimate / actual ${(expected / second.cost).toFixed(3)})`,
  );
}

export default async function main(): Promise<void> {
  const root = mkdtempSync(path.join(tmpdir(), "kgate-bench-curtail-"));
  try {
    const paths = projectPaths(root);
    const tasks = scaffoldTasks(
      paths,
      PAPER_BATCH.map((t) => t.id),
    );
    out(
      `batch: ${PAPER_BATCH.length} tasks at n = ${N}, each cell passing at its task's own rate (exact expectations, no sampling)`,
    );
    await batch(
      root,
      tasks,
      PAPER_CELLS,
      "the paper's cells (frontier+A >= 0.6, frontier-A = 0, mid+A <= 0.4)",
    );
    await batch(
      root,
      tasks,
      [...PAPER_CELLS, PAPER_CONTROL],
      "with the default cells' control (a perturbed artefact, = 0, never passing)",
    );
    leaky(tasks);
    await estimateCheck(root, tasks);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
