// The cost ceiling under concurrency (src/calibrate/admission.ts through the engine): the same batch
// and ceiling start the same trials at concurrency 1 and 4, whatever order the trials finish in, with
// and without curtailment and under screening. The runner is scripted (outcomes and costs drawn from
// a seed, no model); the order trials finish in is set by a seeded number of event-loop turns per
// trial, never by a clock.
import { mkdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  BudgetGate,
  buildPlan,
  CalibrationConfig,
  type CalibrationConfigInput,
  type CellRunner,
  claimedBefore,
  type Plan,
  runCalibration,
  summarise,
} from "../src/calibrate/index.ts";
import { draw, recordFor, resolver, scaffoldTasks } from "./support/calibrate-fixtures.ts";
import { tempProject } from "./support/project.ts";

const CELLS = [
  { name: "frontier+A", agent: "frontier", condition: "+A", require: ">= 0.6" },
  { name: "frontier-A", agent: "frontier", condition: "-A", require: "= 0" },
  { name: "mid+A", agent: "mid", condition: "+A", require: "<= 0.4" },
] as const;
const PASS: Record<string, number> = { "frontier+A": 0.8, "frontier-A": 0, "mid+A": 0.2 };

/** Resolves after `turns` turns of the event loop (setImmediate): an order without a clock. */
async function turns(count: number): Promise<void> {
  for (let i = 0; i < count; i++) await new Promise<void>((r) => setImmediate(r));
}

function setup(config: CalibrationConfigInput, ceiling: { usd: number; worst: number }) {
  const paths = tempProject();
  const loaded = scaffoldTasks(paths, ["t1", "t2", "t3"]);
  const base = buildPlan({
    runId: "run-1",
    config: CalibrationConfig.parse({ cells: [...CELLS], ...config }),
    tasks: loaded,
    resolveAgent: resolver(),
  });
  const plan: Plan = {
    ...base,
    ceiling: {
      usd: ceiling.usd,
      worstCaseUsd: Object.fromEntries(base.cells.map((c) => [c.key, ceiling.worst])),
    },
  };
  return { paths, plan, tasks: new Map(loaded.map((t) => [t.id, t])) };
}

/** Runs the plan in a fresh run directory; outcomes and costs are the trial's own, its finishing order the seed's. */
async function started(
  s: ReturnType<typeof setup>,
  concurrency: number,
  orderSeed: number,
  cost: (key: string) => number,
) {
  const runDir = path.join(s.paths.runs, `c${concurrency}-s${orderSeed}`);
  mkdirSync(runDir, { recursive: true });
  const runner: CellRunner = async (job) => {
    const key = `${job.cell.key}#${job.index}`;
    await turns(Math.floor(draw(orderSeed, key) * 60));
    const pass = draw(7, key) < (PASS[job.cell.label] ?? 0);
    return recordFor(job, { outcome: pass ? "pass" : "fail", attribution: "other", costUsd: cost(key) });
  };
  const result = await runCalibration({
    plan: { ...s.plan, runId: s.plan.runId },
    runDir,
    tasks: s.tasks,
    runner,
    records: [],
    concurrency,
  });
  return { result, ids: result.written.map((r) => r.trialId).sort() };
}

describe("the cost ceiling admits the same trials at any concurrency", () => {
  // Every trial may cost up to $0.78 and costs $0.10: one at a time, trial k + 1 starts while
  // 0.10 k + 0.78 <= 2.00, i.e. k <= 12.2: 13 trials. With two in flight $1.56 is reserved, and a third
  // ($2.34) must wait for them to settle, not be given up.
  const ceiling = { usd: 2, worst: 0.78 };
  const flat = () => 0.1;

  it("without curtailment: the first 13 trials in index-major order, at concurrency 1 and 4", async () => {
    const s = setup({ n: 5, curtail: false }, ceiling);
    const one = await started(s, 1, 1, flat);
    expect(one.ids).toHaveLength(13);
    // index 0 of the 3 tasks x 3 cells (9), then index 1 of t1's three cells and of t2's frontier+A
    const expected = [
      ...["t1", "t2", "t3"].flatMap((t) => [
        `${t}.with-A.frontier.0`,
        `${t}.without-A.frontier.0`,
        `${t}.with-A.mid.0`,
      ]),
      "t1.with-A.frontier.1",
      "t1.without-A.frontier.1",
      "t1.with-A.mid.1",
      "t2.with-A.frontier.1",
    ].sort();
    expect(one.ids).toEqual(expected);
    for (const seed of [1, 2, 3, 4, 5]) {
      const four = await started(s, 4, seed, flat);
      expect(four.ids).toEqual(expected);
      // 13 x $0.10 spent, nothing left reserved; the other 45 - 13 = 32 are listed as held back
      expect(four.result.budget?.spentUsd).toBeCloseTo(1.3, 10);
      expect(four.result.budget?.reservedUsd).toBe(0);
      const summary = summarise(s.plan, four.result.written);
      expect(summary.budget!.refused.reduce((n, r) => n + r.trials.length, 0)).toBe(32);
    }
  }, 60_000);

  it("with curtailment and with costs that differ per trial: the same trials at concurrency 1 and 4", async () => {
    const s = setup({ n: 5 }, ceiling);
    // $0.05 to $0.15 per trial, drawn per trial (the same trial costs the same in every run)
    const cost = (key: string) => 0.05 + 0.1 * draw(3, key);
    const one = await started(s, 1, 1, cost);
    expect(one.ids.length).toBeGreaterThan(9);
    for (const seed of [1, 2, 3, 4, 5]) expect((await started(s, 4, seed, cost)).ids).toEqual(one.ids);
  }, 60_000);

  it("under screening without curtailment (added trials go in rounds): the same trials", async () => {
    const s = setup({ n: 2, curtail: false, sequential: { enabled: true, cap: 8 } }, ceiling);
    const one = await started(s, 1, 1, flat);
    // more than the first round (3 x 3 x 2 = 18) is wanted, so the ceiling binds at 13 again
    expect(one.ids).toHaveLength(13);
    for (const seed of [1, 2, 3, 4, 5]) expect((await started(s, 4, seed, flat)).ids).toEqual(one.ids);
  }, 60_000);
});

describe("the admission rule", () => {
  it("admits when everything that may come first fits, gives up only when what came first leaves no room", () => {
    const gate = new BudgetGate(2, 0.5);
    // spent 0.5 + reserved 0 + ahead 0 + 0.78 = 1.28 <= 2: admit
    expect(gate.decide([0, 0, 0], 0.78, 0)).toBe("admit");
    gate.reserve("a", [0, 0, 0], 0.78);
    gate.reserve("b", [0, 1, 0], 0.78);
    // 0.5 + 1.56 + 0.78 = 2.84 > 2, but before [0, 2, 0] only the earlier sessions' 0.5 is spent: wait
    expect(gate.decide([0, 2, 0], 0.78, 0)).toBe("wait");
    gate.settle("a", 0.9);
    gate.settle("b", 0.1);
    // spent 1.5 + 0.78 = 2.28 > 2 whatever else settles: give up
    expect(gate.decide([0, 2, 0], 0.78, 0)).toBe("refuse");
    // a later trial's own worst case of 0.4 fits (1.5 + 0.4 = 1.9)
    expect(gate.decide([1, 0, 0], 0.4, 0)).toBe("admit");
  });

  it("counts the trials of a sequence that come before a key", () => {
    // 4 trials at [3, 1, -1], [4, 1, -1], [5, 1, -1], [6, 1, -1], $0.5 each; before [5, 0, 2]: 3 and 4
    // (task 1 comes after task 0 at 5); before [5, 2, 0]: 3, 4 and 5
    const claims = [{ key: [3, 1, -1] as const, count: 4, worst: 0.5 }];
    expect(claimedBefore(claims, [5, 0, 2])).toBe(1);
    expect(claimedBefore(claims, [5, 2, 0])).toBe(1.5);
    expect(claimedBefore(claims, [2, 9, 9])).toBe(0);
    expect(claimedBefore(claims, [99, 0, 0])).toBe(2);
  });
});
