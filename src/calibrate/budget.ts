// The cost ceiling of a calibration (--max-cost), kept in the plan: each cell's worst case priced from
// its configuration's caps on its task, what a trial is charged against the ceiling, and what the run
// has spent (every attempt, earlier sessions included).
import { type CostCaps, type JudgeWorstCase, worstCaseUsd } from "../cost/index.ts";
import { type TrialRecord, trialCostUsd } from "../record/index.ts";
import type { LoadedTask } from "../task/index.ts";
import { cellKey, type PlannedCell } from "./cells.ts";
import type { Plan, PlanCeiling } from "./plan.ts";

/** The ceiling could not be priced: these agent configurations have no prices. */
export class UnpricedCeiling extends Error {
  constructor(readonly agents: string[]) {
    super(`--max-cost needs prices: agent configuration(s) ${agents.join(", ")} have no "pricing"`);
  }
}

/**
 * The plan's ceiling at `usd`: each cell's worst case, its configuration's token caps at its prices
 * on the task's maxTokens, plus the task's judges' worst case (`judges`, by task id). Throws
 * UnpricedCeiling naming every configuration without prices (judges' included).
 */
export function priceCeiling(
  usd: number,
  cells: readonly PlannedCell[],
  tasks: ReadonlyMap<string, LoadedTask>,
  caps: (agent: string) => CostCaps | null,
  judges: ReadonlyMap<string, JudgeWorstCase> = new Map(),
): PlanCeiling {
  const unpriced = [...new Set(cells.map((c) => c.agent))].filter((a) => !caps(a)?.pricing);
  const judgesUnpriced = cells.flatMap((c) => judges.get(c.task)?.unpriced ?? []);
  if (unpriced.length + judgesUnpriced.length > 0)
    throw new UnpricedCeiling([...new Set([...unpriced, ...judgesUnpriced])]);
  const worst: Record<string, number> = {};
  for (const cell of cells) {
    const task = tasks.get(cell.task);
    // a trial's judges are part of its cost (their calls at most, judges.ts)
    if (task)
      worst[cell.key] =
        worstCaseUsd(caps(cell.agent)!, task.spec.limits.maxTokens)! + (judges.get(cell.task)?.usd ?? 0);
  }
  return { usd, worstCaseUsd: worst };
}

/** The most one trial of a cell can cost under the plan's ceiling (0 without one, or for an unknown cell). */
export const worstOf = (plan: Plan, key: string): number => plan.ceiling?.worstCaseUsd[key] ?? 0;

/**
 * What an attempt is charged against the ceiling: its recorded cost, the agent's and its judges'
 * (trialCostUsd), or its cell's worst case when that is unknown.
 */
export function chargedUsd(plan: Plan, record: TrialRecord): number {
  return trialCostUsd(record) ?? worstOf(plan, cellKey(record.task.id, record.agent.name, record.condition));
}

/** What the run has spent: every attempt in its records, whatever session wrote it. */
export const spentUsd = (plan: Plan, records: readonly TrialRecord[]): number =>
  records.reduce((sum, r) => sum + chargedUsd(plan, r), 0);

/** `$2`, `$0.78`: a USD amount in the ceiling's words (at most four decimals). */
export const dollars = (x: number) => `$${Math.round(x * 10_000) / 10_000}`;

/** The command that continues a run, said so that following it never drops or silently keeps the ceiling. */
export function resumeHint(plan: Plan, blocked: boolean): string {
  const resume = `kgate calibrate --resume ${plan.runId}`;
  if (!plan.ceiling) return resume;
  return blocked
    ? `${resume} --max-cost <more than ${dollars(plan.ceiling.usd)}>`
    : `${resume} (keeps the cost ceiling ${dollars(plan.ceiling.usd)}; --max-cost <more> raises it)`;
}
