// A run's cost ceiling (--max-cost), over any kind of unit: before a unit starts, its worst case is
// reserved through the engine's admit hook; once it ends the reservation is settled at the recorded
// cost (at the worst case again when the record has none). No unit starts whose reservation would take
// spent + reserved past the ceiling; what it leaves unrun has no record, and a resume with a higher
// ceiling continues. Spent counts every earlier attempt of the run too.
import { z } from "zod";
import type { Admission } from "../trial/index.ts";

/** A run's budget as its summary states it. */
export const BudgetState = z.object({
  ceilingUsd: z.number().nonnegative(),
  spentUsd: z.number().nonnegative(),
  reservedUsd: z.number().nonnegative(),
  /** Units refused because their reservation would cross the ceiling. */
  refused: z.number().int().nonnegative(),
});
export type BudgetState = z.infer<typeof BudgetState>;

export interface CeilingOptions<J, R> {
  ceilingUsd: number;
  /** What the run's earlier attempts cost (a resume counts what was spent before). */
  spentBefore: number;
  /** The most this unit's attempt can cost. */
  worstCase(job: J): number;
  /** An attempt's recorded cost, or null when its record has none. */
  costOf(record: R): number | null;
  /** The unit's name in words, e.g. "trial", "exam". */
  unit: string;
}

export class CostCeiling<J, R> {
  private spent: number;
  private reserved = 0;
  private refusedCount = 0;

  constructor(private readonly o: CeilingOptions<J, R>) {
    this.spent = o.spentBefore;
  }

  get state(): BudgetState {
    return {
      ceilingUsd: this.o.ceilingUsd,
      spentUsd: this.spent,
      reservedUsd: this.reserved,
      refused: this.refusedCount,
    };
  }

  /** The engine's admit hook: reserve the worst case, or refuse. */
  admit = (job: J): Admission<R> => {
    const worst = this.o.worstCase(job);
    if (this.spent + this.reserved + worst > this.o.ceilingUsd + 1e-12) {
      this.refusedCount += 1;
      return {
        ok: false,
        reason: `cost ceiling $${this.o.ceilingUsd}: spent $${usd(this.spent)} + reserved $${usd(this.reserved)} + this ${this.o.unit}'s worst case $${usd(worst)} would cross it`,
      };
    }
    this.reserved += worst;
    return {
      ok: true,
      settle: (record) => {
        this.reserved -= worst;
        if (record) this.spent += this.o.costOf(record) ?? worst;
      },
    };
  };
}

export const usd = (x: number) => (Math.round(x * 10_000) / 10_000).toString();

/**
 * The budget in words, for a run's warnings and reports. `shortfall` says what the refused units
 * leave (e.g. "the cells short of n are incomplete"); `resume` is the command that continues.
 */
export function budgetLine(
  state: BudgetState,
  o: { unit: string; shortfall: string; resume: string },
): string {
  const head = `cost ceiling $${state.ceilingUsd}: spent $${usd(state.spentUsd)}, reserved $${usd(state.reservedUsd)}`;
  return state.refused > 0
    ? `${head}; ${state.refused} ${o.unit}(s) not started because their worst case would cross it: ${o.shortfall} (continue with  ${o.resume} --max-cost <more>)`
    : head;
}

/** --max-cost's value: a non-negative amount of USD, or an error message naming the option. */
export function parseMaxCost(text: string): number | string {
  const value = Number(text);
  if (text.trim() === "" || !Number.isFinite(value) || value < 0)
    return `--max-cost: "${text}" is not an amount in USD (e.g. 25 or 2.5)`;
  return value;
}
