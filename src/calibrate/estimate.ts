// `kgate calibrate --estimate`: what a calibration would cost, before any trial or model call. Per
// cell: the trials it plans, and tokens and cost per trial from the earlier records in runs/ of the
// same agent configuration digest, task definition digest and condition (how many are said), else
// from the configuration's token caps at its prices (an upper bound, labelled so); per cell and in
// total a range: low (every trial as cheap as the cheapest seen), expected (the mean), high.
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import type { TrialRecord } from "../model/index.ts";
import type { LoadedTask } from "../task/index.ts";
import { readTrialRecords } from "../trial/index.ts";
import { type CostCaps, usd, worstCaseUsd } from "./budget.ts";
import type { PlannedCell } from "./cells.ts";

export interface EstimateAgent {
  digest: string;
  caps: CostCaps | null;
}

export interface Range {
  low: number;
  expected: number;
  high: number;
}

export interface CellEstimate {
  task: string;
  cell: string;
  trials: number;
  /** `records`: from earlier records; `caps`: the token caps at the prices (an upper bound); `unknown`: neither. */
  source: "records" | "caps" | "unknown";
  /** Earlier records the figures come from. */
  records: number;
  /** Expected tokens per trial (mean of the records; caps: the token budget as input, no output split). */
  tokens: { input: number; output: number; cacheRead: number; cacheWrite: number };
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

const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;

export function estimateCalibration(o: {
  cells: readonly PlannedCell[];
  tasks: ReadonlyMap<string, LoadedTask>;
  agents: ReadonlyMap<string, EstimateAgent>;
  trialsPerCell: number;
  records: readonly TrialRecord[];
}): CalibrationEstimate {
  const cells = o.cells.map((cell): CellEstimate => {
    const task = o.tasks.get(cell.task)!;
    const agent = o.agents.get(cell.agent);
    const trials = o.trialsPerCell;
    const same = o.records.filter(
      (r) =>
        r.agent.digest === agent?.digest &&
        r.task.id === cell.task &&
        r.task.digests.task === task.digests.task &&
        r.condition === cell.condition &&
        r.usage.costUsd !== null,
    );
    if (same.length > 0) {
      const costs = same.map((r) => r.usage.costUsd!);
      return {
        task: cell.task,
        cell: cell.label,
        trials,
        source: "records",
        records: same.length,
        tokens: {
          input: mean(same.map((r) => r.usage.inputTokens)),
          output: mean(same.map((r) => r.usage.outputTokens)),
          cacheRead: mean(same.map((r) => r.usage.cacheReadTokens)),
          cacheWrite: mean(same.map((r) => r.usage.cacheWriteTokens)),
        },
        costUsd: {
          low: trials * Math.min(...costs),
          expected: trials * mean(costs),
          high: trials * Math.max(...costs),
        },
      };
    }
    const worst = agent?.caps ? worstCaseUsd(agent.caps, task.spec.limits.maxTokens) : null;
    const budget = agent?.caps ? Math.min(agent.caps.tokenBudget, task.spec.limits.maxTokens) : 0;
    return {
      task: cell.task,
      cell: cell.label,
      trials,
      source: worst === null ? "unknown" : "caps",
      records: 0,
      tokens: { input: budget, output: 0, cacheRead: 0, cacheWrite: 0 },
      costUsd: worst === null ? null : { low: 0, expected: trials * worst, high: trials * worst },
    };
  });
  const known = cells.map((c) => c.costUsd);
  const totalUsd = known.every((c) => c !== null)
    ? known.reduce<Range>(
        (t, c) => ({ low: t.low + c!.low, expected: t.expected + c!.expected, high: t.high + c!.high }),
        { low: 0, expected: 0, high: 0 },
      )
    : null;
  return { cells, totalUsd, uncertain: cells.filter((c) => c.source !== "records").length };
}

const range = (r: Range | null) =>
  r === null ? "unknown (no prices)" : `$${usd(r.expected)} ($${usd(r.low)}-$${usd(r.high)})`;

/** The estimate as lines of text. */
export function estimateText(e: CalibrationEstimate): string {
  const lines = e.cells.map((c) => {
    const from =
      c.source === "records"
        ? `from ${c.records} earlier record(s)`
        : c.source === "caps"
          ? "upper bound from the token caps (no earlier record)"
          : "no earlier record and no prices";
    const t = c.tokens;
    const tokens = `${Math.round(t.input)} in / ${Math.round(t.output)} out / ${Math.round(t.cacheRead + t.cacheWrite)} cache tokens per trial`;
    return `${c.task}  ${c.cell}: ${c.trials} trial(s), ${tokens}, ${range(c.costUsd)}  [${from}]`;
  });
  lines.push(
    `total: ${range(e.totalUsd)}` +
      (e.uncertain > 0 ? ` (${e.uncertain} cell(s) without earlier records: upper bound or unknown)` : ""),
    "trials per cell are the plan's n: curtailment usually runs fewer, so the figures are of the full plan",
  );
  return `${lines.join("\n")}\n`;
}
