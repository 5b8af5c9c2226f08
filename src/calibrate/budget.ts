// The cost ceiling of a run (--max-cost): before a trial starts, its worst case (the configuration's
// token caps at its prices) is reserved; once it ends the reservation is settled at the recorded cost
// (at the worst case again when the record has no cost). No trial starts whose reservation would take
// spent + reserved past the ceiling; the cells it leaves short stay incomplete, and a resume with a
// higher ceiling continues. Spent counts every attempt of the run, earlier sessions included.
import type { AgentConfig } from "../agents/index.ts";
import type { TrialRecord } from "../model/index.ts";
import type { Admission } from "../trial/index.ts";
import type { CellSlot } from "./engine.ts";

/** What bounds one trial's cost: the configuration's caps and prices. */
export type CostCaps = Pick<
  AgentConfig,
  "tokenBudget" | "maxTurns" | "maxOutputTokens" | "outputTokenBudget" | "pricing"
>;

/**
 * The most one trial of a configuration can cost on a task (USD), or null when the configuration has
 * no prices. Tokens are bounded by the tighter of its token budget and the task's maxTokens; output
 * tokens also by maxTurns x maxOutputTokens and its output budget; every other token is counted at
 * the dearest of the input, cache-read and cache-write prices.
 */
export function worstCaseUsd(caps: CostCaps, taskMaxTokens: number): number | null {
  const p = caps.pricing;
  if (!p) return null;
  const total = Math.min(caps.tokenBudget, taskMaxTokens);
  const output = Math.min(total, caps.outputTokenBudget ?? total, caps.maxTurns * caps.maxOutputTokens);
  const dearIn = Math.max(
    p.inputPerMTok,
    p.cacheReadPerMTok ?? p.inputPerMTok,
    p.cacheWritePerMTok ?? p.inputPerMTok,
  );
  const perToken = (usd: number) => usd / 1e6;
  // A linear cost over output in [0, output]: the worst case is at one end.
  const allIn = total * perToken(dearIn);
  const mostOut = output * perToken(p.outputPerMTok) + (total - output) * perToken(dearIn);
  return Math.max(allIn, mostOut);
}

export interface BudgetState {
  ceilingUsd: number;
  spentUsd: number;
  reservedUsd: number;
  /** Trials refused because their reservation would cross the ceiling. */
  refused: number;
}

export class CostCeiling {
  private spent: number;
  private reserved = 0;
  private refusedCount = 0;

  constructor(
    private readonly ceiling: number,
    /** Every earlier attempt of the run (a resume counts what was spent before). */
    earlier: readonly TrialRecord[],
    private readonly worstCase: (slot: CellSlot) => number,
  ) {
    this.spent = earlier.reduce((s, r) => s + (r.usage.costUsd ?? 0), 0);
  }

  get state(): BudgetState {
    return {
      ceilingUsd: this.ceiling,
      spentUsd: this.spent,
      reservedUsd: this.reserved,
      refused: this.refusedCount,
    };
  }

  /** The engine's admit hook: reserve the worst case, or refuse. */
  admit = (slot: CellSlot): Admission<TrialRecord> => {
    const worst = this.worstCase(slot);
    if (this.spent + this.reserved + worst > this.ceiling + 1e-12) {
      this.refusedCount += 1;
      return {
        ok: false,
        reason: `cost ceiling $${this.ceiling}: spent $${usd(this.spent)} + reserved $${usd(this.reserved)} + this trial's worst case $${usd(worst)} would cross it`,
      };
    }
    this.reserved += worst;
    return {
      ok: true,
      settle: (record) => {
        this.reserved -= worst;
        if (record) this.spent += record.usage.costUsd ?? worst;
      },
    };
  };
}

export const usd = (x: number) => (Math.round(x * 10_000) / 10_000).toString();

/** The budget in words, for the run's warnings (and so its reports). */
export function budgetLine(state: BudgetState, resume: string): string {
  const head = `cost ceiling $${state.ceilingUsd}: spent $${usd(state.spentUsd)}, reserved $${usd(state.reservedUsd)}`;
  return state.refused > 0
    ? `${head}; ${state.refused} trial(s) not started because their worst case would cross it: the cells short of n are incomplete (continue with  ${resume} --max-cost <more>)`
    : head;
}
