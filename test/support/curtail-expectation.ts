// Exact expected trials of curtailment on one task whose judged cells pass with known probabilities,
// at fixed n: kgate's own order (the calls the engine makes, Curtailer.analyse and nextCell, on each
// state's records), the best order the rule allows (a dynamic programme over every choice that knows
// the true rates, on the same exact skip rule), and no curtailment (n per cell). Also the expected
// trials per cell, for expected costs.
import {
  type CellPosition,
  Curtailer,
  type Plan,
  type PlannedCell,
  step,
  type Tally,
  tallyRecords,
} from "../../src/calibrate/index.ts";
import type { TrialRecord } from "../../src/record/index.ts";
import type { LoadedTask } from "../../src/task/index.ts";
import { jobFor, recordFor } from "./calibrate-fixtures.ts";

/** Expected trials in all and per judged cell (by label). */
export interface Expectation {
  trials: number;
  perCell: Record<string, number>;
}

export interface TaskExpectations {
  kgate: Expectation;
  best: Expectation;
  full: Expectation;
}

const start = (plan: Plan): CellPosition => ({ passes: 0, runs: 0, firstLeft: plan.n, unverified: 0 });
const keyOf = (ps: readonly CellPosition[]) => ps.map((p) => `${p.passes}/${p.runs}`).join(",");

/** `value` plus `q` times `a` plus `1 - q` times `b`, per cell; a branch of probability 0 is not evaluated. */
function mix(q: number, a: () => Expectation, b: () => Expectation, cell: string): Expectation {
  const out: Expectation = { trials: 1, perCell: { [cell]: 1 } };
  for (const [w, branch] of [
    [q, a],
    [1 - q, b],
  ] as const) {
    if (w === 0) continue;
    const e = branch();
    out.trials += w * e.trials;
    for (const [k, v] of Object.entries(e.perCell)) out.perCell[k] = (out.perCell[k] ?? 0) + w * v;
  }
  return out;
}

const none = (): Expectation => ({ trials: 0, perCell: {} });

/** The records of a state: per cell, its passes first, then its fails (order does not matter to the rule). */
function tallyAt(
  plan: Plan,
  tasks: ReadonlyMap<string, LoadedTask>,
  cells: readonly PlannedCell[],
  ps: readonly CellPosition[],
): Tally {
  const records: TrialRecord[] = [];
  cells.forEach((cell, i) => {
    for (let k = 0; k < ps[i]!.runs; k++) {
      const outcome = k < ps[i]!.passes ? "pass" : "fail";
      records.push(recordFor(jobFor(plan, tasks, cell, k), { outcome, attribution: "other" }));
    }
  });
  return tallyRecords(plan, records);
}

/** Expectations for task `id` of `plan` (curtailment on, fixed n), its judged cells passing at `rates` (by label). */
export function taskExpectations(
  plan: Plan,
  tasks: ReadonlyMap<string, LoadedTask>,
  id: string,
  rates: Readonly<Record<string, number>>,
): TaskExpectations {
  if (plan.mode !== "fixed") throw new Error("the exact expectation is computed at fixed n");
  const cells = plan.cells.filter((c) => c.task === id && c.require);
  const rate = (cell: PlannedCell) => rates[cell.label] ?? 0;
  const curtailer = new Curtailer(plan);
  const moved = (ps: readonly CellPosition[], i: number, pass: boolean) =>
    ps.map((p, j) => (j === i ? step(p, pass) : p));

  // kgate: the cell the engine would start at each state (its pick, else the first relevant cell)
  const kgateMemo = new Map<string, Expectation>();
  const kgate = (ps: readonly CellPosition[]): Expectation => {
    const key = keyOf(ps);
    const hit = kgateMemo.get(key);
    if (hit) return hit;
    const tally = tallyAt(plan, tasks, cells, ps);
    const analysis = curtailer.analyse(tally, id);
    let r = none();
    const open = (c: PlannedCell) => ps[cells.indexOf(c)]!.firstLeft > 0;
    if (!analysis.settled) {
      const next = curtailer.nextCell(tally, id, analysis);
      const pick = next && open(next) ? next : cells.find((c) => analysis.relevant.has(c.key) && open(c));
      if (pick) {
        const i = cells.indexOf(pick);
        r = mix(
          rate(pick),
          () => kgate(moved(ps, i, true)),
          () => kgate(moved(ps, i, false)),
          pick.label,
        );
      }
    }
    kgateMemo.set(key, r);
    return r;
  };

  // the best order: fewest expected trials over every choice, knowing the rates
  const bestMemo = new Map<string, Expectation>();
  const best = (ps: readonly CellPosition[]): Expectation => {
    const key = keyOf(ps);
    const hit = bestMemo.get(key);
    if (hit) return hit;
    let r = none();
    if (!curtailer.settledOf(cells, ps)) {
      let found: Expectation | null = null;
      cells.forEach((cell, i) => {
        if (curtailer.final(cell, ps[i]!)) return;
        const e = mix(
          rate(cell),
          () => best(moved(ps, i, true)),
          () => best(moved(ps, i, false)),
          cell.label,
        );
        if (!found || e.trials < found.trials - 1e-12) found = e;
      });
      r = found ?? none();
    }
    bestMemo.set(key, r);
    return r;
  };

  const initial = cells.map(() => start(plan));
  const full: Expectation = {
    trials: cells.length * plan.n,
    perCell: Object.fromEntries(cells.map((c) => [c.label, plan.n])),
  };
  return { kgate: kgate(initial), best: best(initial), full };
}
