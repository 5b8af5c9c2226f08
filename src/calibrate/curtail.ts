// Curtailment: a trial is not run when no outcome of the task's remaining trials could change its
// decision, its borderline flag or revise vs discard. Exact, not statistical: every final state each
// judged cell can still reach (fixed n: its remaining trials all pass, all fail or anything between;
// sequential: every path of added trials until its clause is decided or capped) is combined with
// every other cell's, and the shipped rule (rule.ts decide) judges each combination. Cells without
// a clause are never curtailed. The order in which a task's cells run is a heuristic (which cell is
// most likely to settle the task per trial, from the run's pooled pass rates); what is skipped is not.

import { outcomeOf } from "../record/index.ts";
import type { PlannedCell } from "./cells.ts";
import { type CellPosition, chooseCell, type OrderModel, step } from "./curtail-order.ts";
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

export class Curtailer {
  private readonly clauses = new Map<string, ClauseResult>();
  private readonly outcomes = new Map<string, { key: OutcomeKey; result: DecisionResult }>();
  private readonly finalsMemo = new Map<string, CellPosition[]>();
  private readonly reachMemo = new Map<string, string>();
  private readonly settledMemo = new Map<string, DecisionResult | null>();

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
  final(cell: PlannedCell, p: CellPosition): boolean {
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

  /** The classes of final state a cell can still reach from p, as one key. */
  private reach(cell: PlannedCell, p: CellPosition): string {
    const memo = `${cell.key}|${p.passes}/${p.runs}/${p.firstLeft}/${p.unverified}`;
    let r = this.reachMemo.get(memo);
    if (r === undefined) {
      r = this.finals(cell, p)
        .map((q) => this.classOf(cell, q))
        .sort()
        .join(";");
      this.reachMemo.set(memo, r);
    }
    return r;
  }

  /**
   * The one outcome every combination gives, or null (an outcome of `incomplete` never settles);
   * positions whose cells reach the same classes of final state share the answer.
   */
  settledOf(cells: readonly PlannedCell[], positions: readonly CellPosition[]): DecisionResult | null {
    const memo = cells.map((c, i) => `${c.key}=${this.reach(c, positions[i]!)}`).join("|");
    if (this.settledMemo.has(memo)) return this.settledMemo.get(memo)!;
    let first: { key: OutcomeKey; result: DecisionResult } | null = null;
    let settled = true;
    for (const c of this.combinations(cells, positions)) {
      first ??= c;
      if (first.result.decision === "incomplete" || c.key !== first.key) {
        settled = false;
        break;
      }
    }
    const result = settled ? (first?.result ?? null) : null;
    this.settledMemo.set(memo, result);
    return result;
  }

  /** At most how many more trials the task's judged cells may run (fixed: the first round; screening: up to the cap), and which cells. */
  trialsLeft(tally: Tally, task: string): { count: number; cells: PlannedCell[] } {
    let count = 0;
    const cells: PlannedCell[] = [];
    for (const t of cellsOfTask(tally, task)) {
      if (!t.cell.require) continue;
      const p = positionOf(this.plan, t);
      if (this.final(t.cell, p)) continue;
      const screening =
        this.plan.mode === "sequential" ? this.plan.sequential.cap - p.runs - p.unverified : 0;
      count += Math.max(p.firstLeft, screening);
      cells.push(t.cell);
    }
    return { count, cells };
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
   * The cell whose next trial should run: among the relevant ones, the one that settles the task in
   * the fewest trials expected (curtail-order.ts). Null when no judged cell needs a trial.
   */
  nextCell(tally: Tally, task: string, analysis: TaskAnalysis): PlannedCell | null {
    const judged = cellsOfTask(tally, task).filter((t) => t.cell.require);
    const model: OrderModel = {
      cells: judged.map((t) => t.cell),
      settled: (ps) => this.settledOf(model.cells, ps) !== null,
      final: (cell, p) => this.final(cell, p),
    };
    const candidates = judged.flatMap((t, i) => (analysis.relevant.has(t.cell.key) ? [i] : []));
    const positions = judged.map((t) => positionOf(this.plan, t));
    const i = chooseCell(this.plan, model, positions, candidates);
    return i === null ? null : judged[i]!.cell;
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
