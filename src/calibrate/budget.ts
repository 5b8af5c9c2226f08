// The cost ceiling of a calibration (--max-cost): the shared ceiling (src/cost) over the plan's trials,
// each reserving its configuration's worst case on its task; the cells it leaves short stay incomplete.
import { type BudgetState, budgetLine, type CostCaps, CostCeiling, worstCaseUsd } from "../cost/index.ts";
import type { TrialRecord } from "../model/index.ts";
import type { TrialJob } from "./engine.ts";

export type TrialCeiling = CostCeiling<TrialJob, TrialRecord>;

/** A ceiling over trials: `caps` gives each agent configuration's caps and prices (every one priced). */
export function trialCeiling(
  ceilingUsd: number,
  earlier: readonly TrialRecord[],
  caps: (agent: string) => CostCaps,
): TrialCeiling {
  return new CostCeiling<TrialJob, TrialRecord>({
    ceilingUsd,
    spentBefore: earlier.reduce((s, r) => s + (r.usage.costUsd ?? 0), 0),
    worstCase: (job) => worstCaseUsd(caps(job.agent.name), job.task.spec.limits.maxTokens)!,
    costOf: (record) => record.usage.costUsd,
    unit: "trial",
  });
}

/** The budget in words, for the run's warnings (and so its reports). */
export const calibrationBudgetLine = (state: BudgetState, runId: string) =>
  budgetLine(state, {
    unit: "trial",
    shortfall: "the cells short of n are incomplete",
    resume: `kgate calibrate --resume ${runId}`,
  });
