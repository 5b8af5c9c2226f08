// Curtailment's order: which of a task's judged cells runs next. Chosen to minimise the expected number
// of trials until the task is settled (no outcome of the rest can change its decision or flag): a
// dynamic programme over the cells' positions, each cell's pass probability estimated from its own
// trials with a prior worth one trial at its clause's threshold ((passes + t) / (trials + 1): 0.6 for
// ">= 0.6"; 0.1 for "= 0", which a task built as intended never passes, so a -A cell goes first only
// where one pass would save more than the cells that can settle the task otherwise). Nothing of other
// tasks enters, so the order never depends on timing. Exact when the cells' joint positions number at most STATE_LIMIT (fixed n:
// up to 4 judged cells at n = 5, 21^4); beyond (screening up to a cap of 20), the one-step rule: the
// cell most likely to settle the task on its own, per expected trial. What is skipped never depends
// on the order (curtail.ts); only how many trials it takes to get there does.
import type { PlannedCell } from "./cells.ts";
import type { Plan } from "./plan.ts";

/** Where a judged cell stands: valid trials so far, and first-round trials still to run. */
export interface CellPosition {
  passes: number;
  runs: number;
  firstLeft: number;
  unverified: number;
}

export const step = (p: CellPosition, pass: boolean): CellPosition => ({
  passes: p.passes + (pass ? 1 : 0),
  runs: p.runs + 1,
  firstLeft: Math.max(0, p.firstLeft - 1),
  unverified: p.unverified,
});

/** What the order needs of the rule: is the task settled at these positions, does a cell's trial follow? */
export interface OrderModel {
  cells: readonly PlannedCell[];
  settled(positions: readonly CellPosition[]): boolean;
  final(cell: PlannedCell, p: CellPosition): boolean;
}

/** Joint positions up to which the programme is solved exactly. */
export const STATE_LIMIT = 200_000;

/** How far inside the edge an "= 0" ("= 1") clause's prior sits: a prior of exactly 0 would never try such a cell for the one pass that settles the task. */
export const EDGE_PRIOR = 0.1;

/** A clause's prior pass rate: its threshold, or EDGE_PRIOR inside the edge for "= 0" and "= 1". */
export function priorOf(cell: PlannedCell): number {
  const t = cell.require!.threshold;
  return t === 0 ? EDGE_PRIOR : t === 1 ? 1 - EDGE_PRIOR : t;
}

/** A cell's pass probability: its own trials with its clause's prior rate worth one trial. */
export const rateOf = (cell: PlannedCell, p: CellPosition) => (p.passes + priorOf(cell)) / (p.runs + 1);

type Value = { e: number; pick: number };

/** Solved programmes by structure (mode, n, screening, strict, the cells' labels and clauses): tasks alike share one. */
const solved = new Map<string, Map<string, Value>>();

function structureOf(plan: Plan, cells: readonly PlannedCell[]): string {
  const { mode, n, strict, sequential } = plan;
  const clauses = cells.map((c) => [c.label, c.require, c.control]);
  return JSON.stringify([mode, n, strict, mode === "sequential" ? sequential : null, clauses]);
}

const keyOf = (ps: readonly CellPosition[]) =>
  ps.map((p) => `${p.passes}/${p.runs}/${p.firstLeft}/${p.unverified}`).join(",");

/** Trials a cell may still run at most (fixed: n; screening: the cap). */
const most = (plan: Plan) => (plan.mode === "sequential" ? Math.max(plan.n, plan.sequential.cap) : plan.n);

/** Expected trials to settle the task from `ps`, and the cell (index) to run first; pick -1 when none can help. */
function solve(m: OrderModel, memo: Map<string, Value>, ps: readonly CellPosition[]): Value {
  const key = keyOf(ps);
  const hit = memo.get(key);
  if (hit) return hit;
  let best: Value = { e: 0, pick: -1 };
  if (!m.settled(ps)) {
    best = { e: Number.POSITIVE_INFINITY, pick: -1 };
    m.cells.forEach((_cell, i) => {
      const e = expectedAfter(m, memo, ps, i);
      if (e !== null && e < best.e - 1e-12) best = { e, pick: i };
    });
    if (best.pick < 0) best = { e: 0, pick: -1 };
  }
  memo.set(key, best);
  return best;
}

/** 1 + the expected trials after running cell i once from `ps`; null when no trial of it follows. */
function expectedAfter(m: OrderModel, memo: Map<string, Value>, ps: readonly CellPosition[], i: number) {
  const cell = m.cells[i]!;
  if (m.final(cell, ps[i]!)) return null;
  const q = rateOf(cell, ps[i]!);
  const after = (pass: boolean) =>
    solve(
      m,
      memo,
      ps.map((p, j) => (j === i ? step(p, pass) : p)),
    ).e;
  return 1 + (q > 0 ? q * after(true) : 0) + (q < 1 ? (1 - q) * after(false) : 0);
}

/** The one-step rule: P(cell i alone settles the task) / its expected trials until settled or final. */
function oneStep(m: OrderModel, ps: readonly CellPosition[], i: number): number {
  const cell = m.cells[i]!;
  const q = rateOf(cell, ps[i]!);
  const memo = new Map<string, { p: number; e: number }>();
  const walk = (pos: CellPosition): { p: number; e: number } => {
    const key = `${pos.passes}/${pos.runs}/${pos.firstLeft}`;
    const hit = memo.get(key);
    if (hit) return hit;
    let r: { p: number; e: number };
    if (m.settled(ps.map((b, j) => (j === i ? pos : b)))) r = { p: 1, e: 0 };
    else if (m.final(cell, pos)) r = { p: 0, e: 0 };
    else {
      const a = walk(step(pos, true));
      const b = walk(step(pos, false));
      r = { p: q * a.p + (1 - q) * b.p, e: 1 + q * a.e + (1 - q) * b.e };
    }
    memo.set(key, r);
    return r;
  };
  const a = walk(step(ps[i]!, true));
  const b = walk(step(ps[i]!, false));
  return (q * a.p + (1 - q) * b.p) / (1 + q * a.e + (1 - q) * b.e);
}

/**
 * The index of the candidate cell to run next at `ps`: fewest expected trials (exact programme), or
 * the one-step rule's best score beyond STATE_LIMIT; ties go to the cell with fewer trials, then the
 * first. Null when there is no candidate.
 */
export function chooseCell(
  plan: Plan,
  m: OrderModel,
  ps: readonly CellPosition[],
  candidates: readonly number[],
) {
  if (candidates.length === 0) return null;
  const positions = ((most(plan) + 1) * (most(plan) + 2)) / 2;
  const exact = positions ** m.cells.length <= STATE_LIMIT;
  let memo: Map<string, Value> | undefined;
  if (exact) {
    const structure = structureOf(plan, m.cells);
    memo = solved.get(structure);
    if (!memo) {
      memo = new Map();
      solved.set(structure, memo);
      if (solved.size > 16) solved.delete(solved.keys().next().value!);
    }
  }
  // lower is better: expected trials, or minus the one-step score
  const scored = candidates.map((i) => ({
    i,
    cost: exact ? (expectedAfter(m, memo!, ps, i) ?? Number.POSITIVE_INFINITY) : -oneStep(m, ps, i),
    trials: ps[i]!.runs + ps[i]!.unverified,
  }));
  scored.sort((x, y) => x.cost - y.cost || x.trials - y.trials || x.i - y.i);
  return scored[0]!.i;
}
