// Curtailment: a trial is not run when no outcome of the task's remaining trials could change its
// decision, its borderline flag or revise vs discard. Exact, not statistical: every final state each
// judged cell can still reach (fixed n: its remaining trials all pass, all fail or anything between;
// sequential: every path of added trials until its clause is decided or capped) is combined with
// every other cell's, and the shipped rule (rule.ts decide) judges each combination. Cells without
// a clause are never curtailed. The order in which a task's cells run is a heuristic (which cell is
// most likely to settle the task per trial, from the run's pooled pass rates); what is skipped is not.

import { outcomeOf } from "../record/index.ts";
import type { PlannedCell } from "./cells.ts";
import type { Plan } from "./plan.ts";
import {
  type ClauseResult,
  type DecisionResult,
  decide,
  fixedClause,
  fragility,
  sequentialClause,
} from "./rule.ts";
import { type CellTally, cellsOfTask, type Tally } from "./tally.ts";

/** Where a judged cell stands: valid trials so far, and first-round trials still to run. */
export interface CellPosition {
  passes: number;
  runs: number;
  firstLeft: number;
  unverified: number;
}

/** What the rule says of one combination of final states: decision and borderline flag, as one key. */
type OutcomeKey = string;

export interface TaskAnalysis {
  /** The decision every reachable outcome gives, or null while the remaining trials could change it. */
  settled: DecisionResult | null;
  /** Cells whose remaining trials could change the outcome for some outcome of the others. */
  relevant: Set<string>;
  /** Judged cells with trials left (fixed: of the n; sequential: of the first round). */
  left: Map<string, number>;
}

/** First-round trials of a cell still to run: index < n with no record, or whose latest attempt was an infrastructure error. */
export function firstRoundLeft(plan: Plan, t: CellTally): number {
  let left = 0;
  for (let i = 0; i < plan.n; i++) {
    const record = t.slots.get(i);
    if (!record || outcomeOf(record) === "infra") left += 1;
  }
  return left;
}

export function positionOf(plan: Plan, t: CellTally): CellPosition {
  return { passes: t.passes, runs: t.runs, firstLeft: firstRoundLeft(plan, t), unverified: t.unverified };
}

const step = (p: CellPosition, pass: boolean): CellPosition => ({
  passes: p.passes + (pass ? 1 : 0),
  runs: p.runs + 1,
  firstLeft: Math.max(0, p.firstLeft - 1),
  unverified: p.unverified,
});

export class Curtailer {
  private readonly clauses = new Map<string, ClauseResult>();
  private readonly outcomes = new Map<string, { key: OutcomeKey; result: DecisionResult }>();
  private readonly finalsMemo = new Map<string, CellPosition[]>();

  constructor(private readonly plan: Plan) {}

  private clause(cell: PlannedCell, p: CellPosition): ClauseResult {
    const memo = `${cell.key}|${p.passes}/${p.runs}`;
    let r = this.clauses.get(memo);
    if (!r) {
      const input = {
        cell: cell.label,
        requirement: cell.require!,
        control: cell.control,
        passes: p.passes,
        runs: p.runs,
        excluded: p.unverified,
        // a final state under fixed n is judged against n valid trials (a slot left unverified makes it short)
        planned: this.plan.n,
      };
      r =
        this.plan.mode === "sequential"
          ? sequentialClause(input, this.plan.sequential, this.plan.sequential.cap)
          : fixedClause(input);
      this.clauses.set(memo, r);
    }
    return r;
  }

  /** No trial follows: fixed n after its n, sequential once decided or capped. */
  private final(cell: PlannedCell, p: CellPosition): boolean {
    if (p.firstLeft > 0) return false;
    if (this.plan.mode === "fixed") return true;
    return this.clause(cell, p).verdict !== "undecided" || p.runs + p.unverified >= this.plan.sequential.cap;
  }

  /** What decide() sees of a final state: verdict, flag, the flag's words, and whether it has evidence. */
  private classOf(cell: PlannedCell, q: CellPosition): string {
    const r = this.clause(cell, q);
    const words = r.verdict === "met" && r.borderline ? fragility(r) : "";
    return `${r.verdict}|${r.borderline}|${words}|${r.runs === 0}`;
  }

  /** Every final state the cell can reach from p (each trial yet to run counted valid). */
  private finals(cell: PlannedCell, p: CellPosition): CellPosition[] {
    const memo = `${cell.key}|${p.passes}/${p.runs}/${p.firstLeft}/${p.unverified}`;
    const hit = this.finalsMemo.get(memo);
    if (hit) return hit;
    let out: CellPosition[];
    if (this.final(cell, p)) out = [p];
    else {
      // Final states the rule cannot tell apart (same verdict, flag and words of the flag) are one.
      const seen = new Map<string, CellPosition>();
      for (const q of [...this.finals(cell, step(p, true)), ...this.finals(cell, step(p, false))])
        seen.set(this.classOf(cell, q), q);
      out = [...seen.values()];
    }
    this.finalsMemo.set(memo, out);
    return out;
  }

  /** The rule's decision on one combination of final states. */
  private outcome(cells: readonly PlannedCell[], states: readonly CellPosition[]) {
    const memo = cells.map((c, i) => `${c.key}=${states[i]!.passes}/${states[i]!.runs}`).join("|");
    let o = this.outcomes.get(memo);
    if (!o) {
      const result = decide(
        cells.map((c, i) => this.clause(c, states[i]!)),
        { pending: null, strict: this.plan.strict, resume: "" },
      );
      o = { key: `${result.decision}|${result.borderline.join(";")}`, result };
      this.outcomes.set(memo, o);
    }
    return o;
  }

  /** Visits every combination of the cells' final states. */
  private *combinations(cells: readonly PlannedCell[], positions: readonly CellPosition[]) {
    const lists = cells.map((c, i) => this.finals(c, positions[i]!));
    const picks = lists.map(() => 0);
    for (;;) {
      const o = this.outcome(
        cells,
        picks.map((k, i) => lists[i]![k]!),
      );
      yield { picks: [...picks], ...o };
      let i = 0;
      while (i < picks.length && ++picks[i]! >= lists[i]!.length) picks[i++] = 0;
      if (i === picks.length) return;
    }
  }

  /** The one outcome every combination gives, or null (an outcome of `incomplete` never settles). */
  private settledOf(
    cells: readonly PlannedCell[],
    positions: readonly CellPosition[],
  ): DecisionResult | null {
    let first: { key: OutcomeKey; result: DecisionResult } | null = null;
    for (const c of this.combinations(cells, positions)) {
      first ??= c;
      if (first.result.decision === "incomplete" || c.key !== first.key) return null;
    }
    return first?.result ?? null;
  }

  analyse(tally: Tally, task: string): TaskAnalysis {
    const judged = cellsOfTask(tally, task).filter((t) => t.cell.require);
    const cells = judged.map((t) => t.cell);
    const positions = judged.map((t) => positionOf(this.plan, t));
    const left = new Map<string, number>();
    judged.forEach((t, i) => {
      if (!this.final(t.cell, positions[i]!)) left.set(t.cell.key, positions[i]!.firstLeft);
    });
    const all = [...this.combinations(cells, positions)];
    const first = all[0]!;
    const settledAll = first.result.decision !== "incomplete" && all.every((c) => c.key === first.key);
    const relevant = new Set<string>();
    cells.forEach((cell, i) => {
      if (!left.has(cell.key)) return;
      const byOthers = new Map<string, OutcomeKey>();
      for (const c of all) {
        const others = c.picks.filter((_, j) => j !== i).join(",");
        const seen = byOthers.get(others);
        if (seen === undefined) byOthers.set(others, c.key);
        else if (seen !== c.key) {
          relevant.add(cell.key);
          return;
        }
      }
    });
    return { settled: settledAll && left.size > 0 ? first.result : null, relevant, left };
  }

  /**
   * The cell whose next trial should run: among the relevant ones, the one most likely to settle the
   * task per trial and per dollar (its pass rate: the cell's own trials with the run's pooled rate
   * of its spec as a prior worth two trials),
   * else the one with fewest trials so far. Null when no judged cell needs a trial.
   */
  nextCell(
    tally: Tally,
    task: string,
    analysis: TaskAnalysis,
    costOf: (cell: PlannedCell) => number = () => 1,
  ): PlannedCell | null {
    const judged = cellsOfTask(tally, task).filter((t) => t.cell.require);
    const candidates = judged.filter((t) => analysis.relevant.has(t.cell.key));
    if (candidates.length === 0) return null;
    const cells = judged.map((t) => t.cell);
    const base = judged.map((t) => positionOf(this.plan, t));
    const scored = candidates.map((t) => {
      const i = judged.indexOf(t);
      // the run's pooled rate of the spec as a prior worth two trials, updated by the cell's own
      const rate = (t.passes + 2 * pooledRate(tally, t.cell.spec)) / (t.runs + 2);
      const memo = new Map<string, { p: number; e: number }>();
      const walk = (pos: CellPosition): { p: number; e: number } => {
        const key = `${pos.passes}/${pos.runs}/${pos.firstLeft}`;
        const hit = memo.get(key);
        if (hit) return hit;
        const positions = base.map((b, j) => (j === i ? pos : b));
        let r: { p: number; e: number };
        if (this.settledOf(cells, positions)) r = { p: 1, e: 0 };
        else if (this.final(t.cell, pos)) r = { p: 0, e: 0 };
        else {
          const a = walk(step(pos, true));
          const b = walk(step(pos, false));
          r = { p: rate * a.p + (1 - rate) * b.p, e: 1 + rate * a.e + (1 - rate) * b.e };
        }
        memo.set(key, r);
        return r;
      };
      const a = walk(step(base[i]!, true));
      const b = walk(step(base[i]!, false));
      const p = rate * a.p + (1 - rate) * b.p;
      const e = 1 + rate * a.e + (1 - rate) * b.e;
      return { t, score: p / (e * Math.max(costOf(t.cell), 1e-9)), trials: t.runs + t.unverified };
    });
    scored.sort((x, y) => y.score - x.score || x.trials - y.trials);
    return scored[0]!.t.cell;
  }

  /** A cell's clause on the trials it ran, as if they were all it had (the words of a curtailed cell). */
  private shown(t: CellTally, curtailed: number): ClauseResult {
    const input = {
      cell: t.cell.label,
      requirement: t.cell.require!,
      control: t.cell.control,
      passes: t.passes,
      runs: t.runs,
      excluded: t.infra + t.unverified,
      curtailed,
    };
    return this.plan.mode === "sequential"
      ? sequentialClause(input, this.plan.sequential, this.plan.sequential.cap)
      : fixedClause(input);
  }

  /**
   * The decision of a task whose remaining trials were curtailed: the outcome they all give, with the
   * observed clauses' reasons and what was not run. Null when nothing is left or it is not settled.
   */
  curtailedDecision(tally: Tally, task: string, observed: readonly ClauseResult[]): CurtailedDecision | null {
    const analysis = this.analyse(tally, task);
    if (!analysis.settled) return null;
    const labels = new Map(cellsOfTask(tally, task).map((t) => [t.cell.key, t.cell.label]));
    const parts = [...analysis.left].map(([key, n]) => `${labels.get(key)} ${n}`);
    const total = [...analysis.left.values()].reduce((s, n) => s + n, 0);
    const added = this.plan.mode === "sequential" ? " and no trial added" : "";
    const line =
      `curtailed: ${total} trial(s) not run (${parts.join(", ")})${added}: no outcome of them changes ` +
      `the decision or its borderline flag, so these cells' rates and intervals are of fewer trials`;
    // The observed clauses in the decision's own words when they already give it, else every clause;
    // a curtailed cell is worded by what it showed, not as short of n.
    const curtailedCells = cellsOfTask(tally, task).filter(
      (t) => t.cell.require && analysis.left.has(t.cell.key),
    );
    const byLabel = new Map(
      curtailedCells.map((t) => [t.cell.label, this.shown(t, analysis.left.get(t.cell.key)!)]),
    );
    const shown = observed.map((r) => byLabel.get(r.cell) ?? r);
    const now = decide(shown, { pending: null, strict: this.plan.strict, resume: "" });
    const why = now.decision === analysis.settled.decision ? now.reasons : shown.map((r) => r.reason);
    return {
      ...analysis.settled,
      reasons: [line, ...why],
      cells: new Map(
        curtailedCells.map((t) => [
          t.cell.key,
          { left: analysis.left.get(t.cell.key)!, shown: byLabel.get(t.cell.label)! },
        ]),
      ),
    };
  }
}

/** A curtailed task's decision, and per curtailed cell its trials not run and its clause on those it ran. */
export interface CurtailedDecision extends DecisionResult {
  cells: ReadonlyMap<string, { left: number; shown: ClauseResult }>;
}

/** Laplace-smoothed pass rate of a spec over every task of the run so far. */
function pooledRate(tally: Tally, spec: string): number {
  let passes = 0;
  let runs = 0;
  for (const t of tally.cells.values()) {
    if (t.cell.spec !== spec) continue;
    passes += t.passes;
    runs += t.runs;
  }
  return (passes + 1) / (runs + 2);
}
