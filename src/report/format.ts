// Number formatting shared by the Markdown, SVG and HTML writers: rates, intervals, tallies, money.
import type { Interval } from "../common/index.ts";
import type { CellSummary, RunSummary, TaskSummary, UsageTotals } from "./schema.ts";

/** Percent with no decimal for small samples (4/5 -> 80%) and one from 50 runs on (51/75 -> 68.0%). */
export function percent(value: number, runs: number): string {
  return `${(100 * value).toFixed(runs >= 50 ? 1 : 0)}%`;
}

/** Wilson bounds in percent: "[38, 96]" (or "[56.8, 77.5]" from 50 runs on). */
export function interval(i: Interval, runs: number): string {
  const d = runs >= 50 ? 1 : 0;
  return `[${(100 * i.lo).toFixed(d)}, ${(100 * i.hi).toFixed(d)}]`;
}

/** "4/5 (80%) [38, 96]"; "0/0" with no valid run. */
export function tallyText(passes: number, runs: number, i: Interval): string {
  if (runs === 0) return "0/0 (n/a)";
  return `${passes}/${runs} (${percent(passes / runs, runs)}) ${interval(i, runs)}`;
}

/** What a cell shows in Table 1, with excluded and missing trials spelled out. */
export function cellText(c: CellSummary): string {
  const extra: string[] = [];
  if (c.counts.infra > 0) extra.push(`${c.counts.infra} infra`);
  if (c.counts.unverified > 0) extra.push(`${c.counts.unverified} unverified`);
  if (c.counts.missing > 0) extra.push(`${c.counts.missing} missing`);
  if (c.counts.curtailed > 0) extra.push(`${c.counts.curtailed} curtailed`);
  if (c.counts.refused > 0) extra.push(`${c.counts.refused} not started (cost ceiling)`);
  return `${tallyText(c.counts.pass, c.counts.runs, c.interval)}${extra.length > 0 ? ` +${extra.join(", ")}` : ""}`;
}

export function money(u: Pick<UsageTotals, "costUsd" | "costUnknown">): string {
  if (u.costUsd === 0 && u.costUnknown > 0) return "n/a";
  return `$${u.costUsd.toFixed(2)}${u.costUnknown > 0 ? ` (+${u.costUnknown} unpriced)` : ""}`;
}

export function tokens(n: number): string {
  return n.toLocaleString("en-US");
}

interface TokenCounts {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

/** What the token budget counts: input, output, cache reads and cache writes together. */
export function budgetTokens(u: TokenCounts): number {
  return u.inputTokens + u.outputTokens + u.cacheReadTokens + u.cacheWriteTokens;
}

/** "1,000 in · 200 out · 300 cache read · 0 cache write": the parts of budgetTokens. */
export function tokenBreakdown(u: TokenCounts): string {
  return (
    `${tokens(u.inputTokens)} in · ${tokens(u.outputTokens)} out · ` +
    `${tokens(u.cacheReadTokens)} cache read · ${tokens(u.cacheWriteTokens)} cache write`
  );
}

/** The totals sentence's token part: the budget's count, then its breakdown. */
export function tokenTotals(u: TokenCounts): string {
  return `${tokens(budgetTokens(u))} tokens (${tokenBreakdown(u)})`;
}

/**
 * The cost line: spent (every attempt) first, then the latest attempt of each trial, labelled;
 * `spent` null (older summaries): the latest attempts only, labelled so.
 */
export function usageLine(
  latest: TokenCounts & Pick<UsageTotals, "costUsd" | "costUnknown">,
  spent: (TokenCounts & Pick<UsageTotals, "costUsd" | "costUnknown">) | null,
): string {
  const of = (u: typeof latest) => `${tokenTotals(u)}, cost ${money(u)}`;
  const last = `latest attempt of each trial: ${of(latest)}`;
  return spent ? `spent (every attempt): ${of(spent)}; ${last}` : last;
}

/**
 * A task's decision with its flags: `retain (borderline: frontier+A 3/5 meets p >= 0.6 by one trial)`;
 * a decision of scripted agents `retain (plumbing check, not evidence)`.
 */
export function decisionText(
  t: Pick<TaskSummary, "decision" | "borderline"> & { plumbing?: boolean },
): string {
  const flags = [
    ...(t.plumbing ? ["plumbing check, not evidence"] : []),
    ...(t.borderline.length > 0 ? [`borderline: ${t.borderline.join("; ")}`] : []),
  ];
  return flags.length > 0 ? `${t.decision} (${flags.join("; ")})` : t.decision;
}

/** What Table 1's intervals are, printed under it. */
export function intervalNote(s: Pick<RunSummary, "mode">): string {
  return s.mode === "sequential"
    ? "Intervals: naive Wilson 95% (computed as if n were fixed; sequential stopping makes them unreliable). Aggregate rows pool trials across tasks."
    : "Intervals: Wilson 95%. Aggregate rows pool trials across tasks.";
}

/** The label of an aggregate row: "all (5 tasks, pooled trials)". */
export function aggregateLabel(scope: "all" | "retained", tasks: number): string {
  return `${scope} (${tasks} tasks, pooled trials)`;
}
