// `kgate calibrate --estimate`: what a calibration would cost, before any trial or model call. Per
// cell: the trials it plans, and tokens and cost per trial from the earlier records in runs/ of the
// same agent configuration digest, task definition digest and condition (how many are said), else
// from the configuration's token caps at its prices (an upper bound, labelled so, with the token split
// it is priced at and the rates); the ranges and the text are the shared estimate's (src/cost).
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import {
  type CostCaps,
  type CostSample,
  estimateGroup,
  estimateLines,
  type JudgeWorstCase,
  type Range,
  runEstimate,
  sessionCostBound,
  type Tokens,
  type UnitBound,
} from "../cost/index.ts";
import { type TrialRecord, trialCostUsd } from "../record/index.ts";
import type { LoadedTask } from "../task/index.ts";
import { readTrialRecords } from "../trial/index.ts";
import type { PlannedCell } from "./cells.ts";

export interface EstimateAgent {
  digest: string;
  caps: CostCaps | null;
}

export interface CellEstimate {
  task: string;
  cell: string;
  trials: number;
  /** `records`: from earlier records; `caps`: the token caps at the prices (an upper bound); `unknown`: neither. */
  source: "records" | "caps" | "unknown";
  /** Earlier records the figures come from. */
  records: number;
  /** Expected tokens per trial (mean of the records; caps: the worst-case split, judges' calls added). */
  tokens: Tokens;
  costUsd: Range | null;
}

export interface CalibrationEstimate {
  cells: CellEstimate[];
  totalUsd: Range | null;
  /** Cells whose figure is an upper bound from the caps, or unknown. */
  uncertain: number;
}

/** Every trial record under runs/ (unreadable lines are skipped: an estimate reads, it never fails). */
export function earlierRecords(runsDir: string): TrialRecord[] {
  if (!existsSync(runsDir)) return [];
  return readdirSync(runsDir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) => readTrialRecords(path.join(runsDir, d.name)).records);
}

/** A trial record as a cost sample: the agent's tokens and cost, and its judges'. */
export const trialSample = (r: TrialRecord): CostSample => {
  const j = r.judgeUsage;
  return {
    tokens: {
      input: r.usage.inputTokens + (j?.inputTokens ?? 0),
      output: r.usage.outputTokens + (j?.outputTokens ?? 0),
      cacheRead: r.usage.cacheReadTokens + (j?.cacheReadTokens ?? 0),
      cacheWrite: r.usage.cacheWriteTokens + (j?.cacheWriteTokens ?? 0),
    },
    costUsd: trialCostUsd(r),
  };
};

/** A trial's bound with its judges' calls: unknown when they have no prices; how each part is priced. */
function withJudges(agent: UnitBound, judge: JudgeWorstCase | undefined): UnitBound {
  if (!judge) return agent;
  const t = agent.tokens;
  return {
    tokens: { ...t, input: t.input + judge.tokens.input, output: t.output + judge.tokens.output },
    usd: agent.usd === null || judge.usd === null ? null : agent.usd + judge.usd,
    priced: `the agent's ${t.input} in / ${t.output} out at ${agent.priced ?? "no prices"}, its judges' ${judge.tokens.input} in / ${judge.tokens.output} out at their own prices`,
  };
}

export function estimateCalibration(o: {
  cells: readonly PlannedCell[];
  tasks: ReadonlyMap<string, LoadedTask>;
  agents: ReadonlyMap<string, EstimateAgent>;
  trialsPerCell: number;
  records: readonly TrialRecord[];
  /** Each task's judges at most per trial (judge criteria), by task id. */
  judges?: ReadonlyMap<string, JudgeWorstCase>;
}): CalibrationEstimate {
  const cells = o.cells.map((cell): CellEstimate => {
    const task = o.tasks.get(cell.task)!;
    const agent = o.agents.get(cell.agent);
    const same = o.records.filter(
      (r) =>
        r.agent.digest === agent?.digest &&
        r.task.id === cell.task &&
        r.task.digests.task === task.digests.task &&
        r.condition === cell.condition,
    );
    const caps = agent?.caps ?? null;
    const judge = o.judges?.get(cell.task);
    const bound = caps && withJudges(sessionCostBound(caps, task.spec.limits.maxTokens), judge);
    const g = estimateGroup(`${cell.task}  ${cell.label}`, o.trialsPerCell, same.map(trialSample), bound);
    const { group: _g, units, ...rest } = g;
    return { task: cell.task, cell: cell.label, trials: units, ...rest };
  });
  const total = runEstimate(cells.map((c) => ({ ...c, group: `${c.task}  ${c.cell}`, units: c.trials })));
  return { cells, totalUsd: total.totalUsd, uncertain: total.uncertain };
}

/** The estimate as lines of text. */
export function estimateText(e: CalibrationEstimate): string {
  const groups = e.cells.map((c) => ({ ...c, group: `${c.task}  ${c.cell}`, units: c.trials }));
  return estimateLines({ groups, totalUsd: e.totalUsd, uncertain: e.uncertain }, "trial", [
    "trials per cell are the plan's n: curtailment usually runs fewer, so the figures are of the full plan",
  ]);
}
