// Benchmark: what curtailment saves, and how close `--estimate` comes. A batch shaped like the paper's
// (15 tasks, n = 5, cells frontier+A >= 0.6, frontier-A = 0, mid+A <= 0.4; frontier +A 51/75,
// frontier -A 0/75, mid +A 17/75, 7 retained) is replayed through the calibration engine with a
// scripted runner (fixed outcomes per trial, costs drawn per run from a seeded spread around a
// per-cell mean: no model, no sandbox), in full (--no-curtail) and curtailed, in the same process.
// Reports trials and cost of each, whether every decision and flag agree, and the estimate made from
// run 1's records against the cost of a second identical full run (targets: >= 20% fewer trials,
// identical decisions; estimate within 15%).
//   npm run bench curtail      or      npx tsx bench/curtail.ts
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  buildPlan,
  CalibrationConfig,
  type CellRunner,
  estimateCalibration,
  runCalibration,
  summarise,
} from "../src/calibrate/index.ts";
import { projectPaths } from "../src/project.ts";
import { agentInfo, draw, recordFor, scaffoldTasks } from "../test/support/calibrate-fixtures.ts";

const N = 5;
const CELLS = [
  { name: "frontier+A", agent: "frontier", condition: "+A", require: ">= 0.6" },
  { name: "frontier-A", agent: "frontier", condition: "-A", require: "= 0" },
  { name: "mid+A", agent: "mid", condition: "+A", require: "<= 0.4" },
] as const;
/** Mean USD of one trial per cell: frontier sessions are long, -A ones shorter, mid ones cheap. */
const MEAN_COST: Record<string, number> = { "frontier+A": 0.6, "frontier-A": 0.4, "mid+A": 0.08 };

/**
 * Outcome letters per task (P pass, F fail). t01-t04 retained (+A 5/5, mid 1/5), t05 retained (+A
 * 5/5, mid 0/5), t06-t07 retained (+A 4/5, mid 0/5), t08-t10 revise (mid 3/5 misses "<= 0.4" by
 * one), t11 discard (mid 4/5), t12-t15 discard (+A 0/5). frontier+A: 25 + 8 + 15 + 3 = 51;
 * mid+A: 4 + 9 + 4 = 17 (hand-summed).
 */
function script(i: number): Record<string, string> {
  const n = i + 1;
  if (n <= 4) return { "frontier+A": "PPPPP", "frontier-A": "FFFFF", "mid+A": "PFFFF" };
  if (n === 5) return { "frontier+A": "PPPPP", "frontier-A": "FFFFF", "mid+A": "FFFFF" };
  if (n <= 7) return { "frontier+A": "PPPPF", "frontier-A": "FFFFF", "mid+A": "FFFFF" };
  if (n <= 10) return { "frontier+A": "PPPPP", "frontier-A": "FFFFF", "mid+A": "PPPFF" };
  if (n === 11) return { "frontier+A": "PPPFF", "frontier-A": "FFFFF", "mid+A": "PPPPF" };
  return { "frontier+A": "FFFFF", "frontier-A": "FFFFF", "mid+A": "FFFFF" };
}

export default async function main(): Promise<void> {
  const root = mkdtempSync(path.join(tmpdir(), "kgate-bench-curtail-"));
  try {
    const paths = projectPaths(root);
    const ids = Array.from({ length: 15 }, (_, i) => `t${String(i + 1).padStart(2, "0")}`);
    const tasks = scaffoldTasks(paths, ids);
    const taskMap = new Map(tasks.map((t) => [t.id, t]));
    const scripts = new Map(ids.map((id, i) => [id, script(i)]));
    const run = async (runId: string, curtail: boolean, seed: number) => {
      const plan = buildPlan({
        runId,
        config: CalibrationConfig.parse({ n: N, cells: [...CELLS], curtail }),
        tasks,
        resolveAgent: (name) => agentInfo(name, name === "frontier" ? "anthropic" : "openai"),
      });
      const runDir = path.join(paths.runs, runId);
      mkdirSync(runDir, { recursive: true });
      const runner: CellRunner = async (job) => {
        const letter = scripts.get(job.task.id)![job.cell.label]![job.index];
        // cost: the cell's mean times a factor in [0.6, 1.4), drawn per run and trial
        const costUsd = MEAN_COST[job.cell.label]! * (0.6 + 0.8 * draw(seed, `${job.cell.key}#${job.index}`));
        return recordFor(job, { outcome: letter === "P" ? "pass" : "fail", attribution: "other", costUsd });
      };
      const started = performance.now();
      const result = await runCalibration({
        plan,
        runDir,
        tasks: taskMap,
        runner,
        records: [],
        concurrency: 1,
      });
      const ms = performance.now() - started;
      const summary = summarise(plan, result.written);
      const cost = result.written.reduce((s, r) => s + (r.usage.costUsd ?? 0), 0);
      return { plan, summary, trials: result.written.length, cost, ms, records: result.written };
    };

    const full = await run("full", false, 1);
    const curtailed = await run("curtailed", true, 1);
    const key = (s: typeof full.summary) =>
      s.tasks.map((t) => `${t.id}:${t.decision}[${t.borderline.join(";")}]`);
    const same = JSON.stringify(key(full.summary)) === JSON.stringify(key(curtailed.summary));
    const agg = (s: typeof full.summary, spec: string) =>
      s.aggregates.find((a) => a.spec === spec && a.scope === "all")!;
    const out = (line: string) => process.stdout.write(`${line}\n`);
    out(`batch: ${ids.length} tasks x ${CELLS.length} cells x n = ${N} (scripted runner, concurrency 1)`);
    out(
      `full run: frontier+A ${agg(full.summary, "frontier+A").passes}/${agg(full.summary, "frontier+A").runs}, ` +
        `frontier-A ${agg(full.summary, "frontier-A").passes}/${agg(full.summary, "frontier-A").runs}, ` +
        `mid+A ${agg(full.summary, "mid+A").passes}/${agg(full.summary, "mid+A").runs}, ` +
        `retained ${full.summary.totals.decisions.retain}, revise ${full.summary.totals.decisions.revise}, discard ${full.summary.totals.decisions.discard}`,
    );
    out(
      `trials: full ${full.trials}, curtailed ${curtailed.trials} (ratio ${(curtailed.trials / full.trials).toFixed(3)}, ${((1 - curtailed.trials / full.trials) * 100).toFixed(1)}% fewer)`,
    );
    out(
      `cost:   full $${full.cost.toFixed(2)}, curtailed $${curtailed.cost.toFixed(2)} (ratio ${(curtailed.cost / full.cost).toFixed(3)})`,
    );
    out(`decisions and borderline flags identical: ${same ? "yes" : "NO"}`);
    out(
      `engine wall time (bookkeeping only): full ${full.ms.toFixed(0)} ms, curtailed ${curtailed.ms.toFixed(0)} ms (ratio ${(curtailed.ms / full.ms).toFixed(2)})`,
    );

    // --estimate from run 1's records, against a second identical full run (other cost draws).
    const estimate = estimateCalibration({
      cells: full.plan.cells,
      tasks: taskMap,
      agents: new Map(full.plan.agents.map((a) => [a.name, { digest: a.digest, caps: null }])),
      trialsPerCell: N,
      records: full.records,
    });
    const second = await run("second", false, 2);
    const expected = estimate.totalUsd!.expected;
    out(
      `estimate from run 1 (${full.records.length} records): $${expected.toFixed(2)} ` +
        `($${estimate.totalUsd!.low.toFixed(2)}-$${estimate.totalUsd!.high.toFixed(2)}); second full run spent $${second.cost.toFixed(2)} ` +
        `(estimate / actual ${(expected / second.cost).toFixed(3)}); curtailed run spent $${curtailed.cost.toFixed(2)}`,
    );
    const perTask = (records: typeof full.records) =>
      ids.map((id) => `${id} ${records.filter((r) => r.task.id === id).length}`).join(", ");
    out(`curtailed trials per task: ${perTask(curtailed.records)}`);
    if (!same) throw new Error("curtailment changed a decision or flag");
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
