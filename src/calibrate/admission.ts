// Admission under the cost ceiling, the same at any concurrency. Trials are decided in one fixed order,
// their key (the trial's place in its task's sequence, then the task's and the cell's place in the
// plan), as if the run went one trial at a time. A trial is admitted once spent + reserved + the worst
// case of every trial that may still come before it + its own worst case fits the ceiling: whatever
// those trials cost, the run one at a time would have admitted it too. It is given up once what the
// attempts before it have already spent + its own worst case does not fit: no reservation that
// settles can change that. In between it waits for reservations to settle. So which trials start
// depends on the budget and the outcomes, never on timing. An infrastructure error's retry is admitted
// only when it fits at once (infrastructure errors are not deterministic, so neither is that).
import { outcomeOf } from "../record/index.ts";
import type { PlannedCell } from "./cells.ts";
import { type Curtailer, firstRoundLeft } from "./curtail.ts";
import type { Plan } from "./plan.ts";
import { decidedDiscard, sequentialResult } from "./policy.ts";
import { fits } from "./refused.ts";
import { cellsOfTask, type Tally } from "./tally.ts";

/** A trial's place in the order of admission: [place in its task's sequence, task, cell]. */
export type AdmissionKey = readonly [number, number, number];

export function compareKeys(a: AdmissionKey, b: AdmissionKey): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/** Trials that may still claim budget: `count` of them, at keys [key[0] + j, key[1], key[2]], each up to `worst`. */
export interface Claim {
  key: AdmissionKey;
  count: number;
  worst: number;
}

/** The worst case of the claims' trials that come before `key` in the order of admission. */
export function claimedBefore(claims: readonly Claim[], key: AdmissionKey): number {
  let total = 0;
  for (const c of claims) {
    // trials j = 0 .. count-1 at [c.key[0] + j, ...]: those with a smaller key
    const [o, t, cell] = c.key;
    const firstAfter = t < key[1] || (t === key[1] && cell < key[2]) ? key[0] + 1 : key[0];
    total += c.worst * Math.max(0, Math.min(c.count, firstAfter - o));
  }
  return total;
}

export type Verdict = "admit" | "wait" | "refuse";

interface Reservation {
  key: AdmissionKey;
  worst: number;
}

/** The run's spend and reservations, by key. */
export class BudgetGate {
  private readonly settled: { key: AdmissionKey; usd: number }[] = [];
  private readonly reservations = new Map<string, Reservation>();
  private spentNow: number;

  constructor(
    readonly ceilingUsd: number,
    /** What earlier sessions spent: before every key. */
    private readonly spentBefore: number,
  ) {
    this.spentNow = spentBefore;
  }

  get spent(): number {
    return this.spentNow;
  }

  get reserved(): number {
    let total = 0;
    for (const r of this.reservations.values()) total += r.worst;
    return total;
  }

  /** What the attempts before `key` have spent (earlier sessions included). */
  private spentBelow(key: AdmissionKey): number {
    let total = this.spentBefore;
    for (const s of this.settled) if (compareKeys(s.key, key) < 0) total += s.usd;
    return total;
  }

  /** Admit, wait or give up a trial whose `ahead` is the worst case of the trials that may still come before it. */
  decide(key: AdmissionKey, worst: number, ahead: number): Verdict {
    if (fits(this.spentNow + this.reserved + ahead, worst, this.ceilingUsd)) return "admit";
    return fits(this.spentBelow(key), worst, this.ceilingUsd) ? "wait" : "refuse";
  }

  /** May a retry start now? Only when it fits at once. */
  fitsNow(worst: number): boolean {
    return fits(this.spentNow + this.reserved, worst, this.ceilingUsd);
  }

  reserve(id: string, key: AdmissionKey, worst: number): void {
    this.reservations.set(id, { key, worst });
  }

  /** The attempt ended: its reservation is released and what it was charged is spent (null: it never ran). */
  settle(id: string, usd: number | null): void {
    const r = this.reservations.get(id);
    if (!r) return;
    this.reservations.delete(id);
    if (usd === null) return;
    this.settled.push({ key: r.key, usd });
    this.spentNow += usd;
  }
}

/** What the claims of a pass need to know of the run. */
export interface ClaimsInput {
  plan: Plan;
  tally: Tally;
  /** Null without curtailment. */
  curtailer: Curtailer | null;
  /** Tasks curtailment has settled: no judged trial follows. */
  settled: ReadonlySet<string>;
  /** Slot keys (`<cell key>#<index>`) of the trials in flight. */
  inFlight: ReadonlySet<string>;
}

/** A curtailed task's place in its sequence of judged trials: the judged trials it has records of. */
export function judgedOrdinal(tally: Tally, task: string): number {
  return cellsOfTask(tally, task)
    .filter((t) => t.cell.require)
    .reduce((sum, t) => sum + t.slots.size, 0);
}

const maxWorst = (plan: Plan, cells: readonly PlannedCell[]) =>
  Math.max(0, ...cells.map((c) => plan.ceiling?.worstCaseUsd[c.key] ?? 0));

/**
 * The trials not yet wanted that may still claim budget, as sequences: a curtailed task's judged
 * trials (one at a time: its next ones, cell not yet known, at the dearest of its open cells), and
 * under screening without curtailment each cell's added trials up to the cap. Keyed by task id or
 * cell key; the trial heading a sequence is counted in it.
 */
export function claimsOf(i: ClaimsInput): Map<string, Claim> {
  const claims = new Map<string, Claim>();
  const { plan, tally } = i;
  plan.tasks.forEach(({ id }, ti) => {
    const cells = cellsOfTask(tally, id).filter((t) => t.cell.require);
    const busy = cells.some((t) => [...i.inFlight].some((k) => k.startsWith(`${t.cell.key}#`)));
    if (i.curtailer) {
      if (i.settled.has(id)) return;
      const left = i.curtailer.trialsLeft(tally, id);
      const count = left.count - (busy ? 1 : 0);
      const key = [judgedOrdinal(tally, id) + (busy ? 1 : 0), ti, -1] as const;
      if (count > 0) claims.set(id, { key, count, worst: maxWorst(plan, left.cells) });
      return;
    }
    if (plan.mode !== "sequential" || decidedDiscard(plan, cells)) return;
    for (const t of cells) {
      const verdict = sequentialResult(plan, t)?.verdict ?? "undecided";
      if (verdict !== "undecided" && firstRoundLeft(plan, t) === 0) continue;
      // the next index not used: a slot whose latest attempt was an infrastructure error is wanted again
      const used = [...t.slots].filter(([, r]) => outcomeOf(r) !== "infra").map(([index]) => index);
      const flying = [...i.inFlight].filter((k) => k.startsWith(`${t.cell.key}#`));
      const indices = [...used, ...flying.map((k) => Number(k.slice(k.lastIndexOf("#") + 1)))];
      const head = Math.max(plan.n, 1 + Math.max(-1, ...indices));
      const count = plan.sequential.cap - head;
      const ci = plan.cells.indexOf(t.cell);
      if (count > 0) claims.set(t.cell.key, { key: [head, ti, ci], count, worst: maxWorst(plan, [t.cell]) });
    }
  });
  return claims;
}
