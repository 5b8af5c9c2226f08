// What a run would cost, before any unit runs or any model is called, per group of like units (a
// calibration cell, an exam size, a triage phase): from the earlier records of the same configuration
// and work where there are any (how many is said), else from the worst case (an upper bound, labelled
// so). A range per group and in total: low (every unit as cheap as the cheapest seen), expected (the
// mean), high (the dearest).
import { usd } from "./ceiling.ts";

export interface Range {
  low: number;
  expected: number;
  high: number;
}

export interface Tokens {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/** One earlier unit of the same configuration and work: its tokens and its cost (null: unpriced). */
export interface CostSample {
  tokens: Tokens;
  costUsd: number | null;
}

/** The bound of one unit when no earlier record exists: its token caps and the cost they allow. */
export interface UnitBound {
  tokens: Tokens;
  /** null: the configuration has no prices. */
  usd: number | null;
  /** How the tokens are priced, in words (e.g. `$5/MTok in, $25/MTok out, ...`): tokens x rates = usd. */
  priced?: string;
}

export interface GroupEstimate {
  /** What the group is, in words (e.g. `bom-costing  frontier+A`). */
  group: string;
  units: number;
  /** `records`: from earlier records; `caps`: the caps at the prices (an upper bound); `unknown`: neither. */
  source: "records" | "caps" | "unknown";
  /** Earlier records the figures come from. */
  records: number;
  /** Expected tokens per unit (the mean of the records; caps: the bound). */
  tokens: Tokens;
  costUsd: Range | null;
  /** From the caps: how their tokens are priced, in words. */
  priced?: string;
}

export interface RunEstimate<G extends GroupEstimate = GroupEstimate> {
  groups: G[];
  totalUsd: Range | null;
  /** Groups whose figure is an upper bound from the caps, or unknown. */
  uncertain: number;
}

const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;

/** A group's estimate from its earlier samples (those with a cost), else from its bound. */
export function estimateGroup(
  group: string,
  units: number,
  samples: readonly CostSample[],
  bound: UnitBound | null,
): GroupEstimate {
  const priced = samples.filter((s) => s.costUsd !== null);
  if (priced.length > 0) {
    const costs = priced.map((s) => s.costUsd!);
    const of = (k: keyof Tokens) => mean(priced.map((s) => s.tokens[k]));
    return {
      group,
      units,
      source: "records",
      records: priced.length,
      tokens: {
        input: of("input"),
        output: of("output"),
        cacheRead: of("cacheRead"),
        cacheWrite: of("cacheWrite"),
      },
      costUsd: {
        low: units * Math.min(...costs),
        expected: units * mean(costs),
        high: units * Math.max(...costs),
      },
    };
  }
  const known = bound?.usd ?? null;
  return {
    group,
    units,
    source: known === null ? "unknown" : "caps",
    records: 0,
    tokens: bound?.tokens ?? { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    costUsd: known === null ? null : { low: 0, expected: units * known, high: units * known },
    ...(known !== null && bound?.priced ? { priced: bound.priced } : {}),
  };
}

/** The run's estimate: its groups and their total (unknown when one group's cost is). */
export function runEstimate<G extends GroupEstimate>(groups: G[]): RunEstimate<G> {
  const known = groups.map((g) => g.costUsd);
  const totalUsd = known.every((c) => c !== null)
    ? known.reduce<Range>(
        (t, c) => ({ low: t.low + c!.low, expected: t.expected + c!.expected, high: t.high + c!.high }),
        { low: 0, expected: 0, high: 0 },
      )
    : null;
  return { groups, totalUsd, uncertain: groups.filter((g) => g.source !== "records").length };
}

export const rangeText = (r: Range | null) =>
  r === null ? "unknown (no prices)" : `$${usd(r.expected)} ($${usd(r.low)}-$${usd(r.high)})`;

/**
 * The estimate as lines of text: one per group, then the total and the notes. `unit` names a unit
 * ("trial", "exam"); `notes` are lines said after the total (e.g. what the figures assume).
 */
export function estimateLines(e: RunEstimate, unit: string, notes: readonly string[] = []): string {
  const lines = e.groups.map((g) => {
    const from =
      g.source === "records"
        ? `from ${g.records} earlier record(s)`
        : g.source === "caps"
          ? `upper bound from the token caps (no earlier record)${g.priced ? `: ${g.priced}` : ""}`
          : "no earlier record and no prices";
    const t = g.tokens;
    const tokens = `${Math.round(t.input)} in / ${Math.round(t.output)} out / ${Math.round(t.cacheRead + t.cacheWrite)} cache tokens per ${unit}`;
    return `${g.group}: ${g.units} ${unit}(s), ${tokens}, ${rangeText(g.costUsd)}  [${from}]`;
  });
  lines.push(
    `total: ${rangeText(e.totalUsd)}` +
      (e.uncertain > 0 ? ` (${e.uncertain} group(s) without earlier records: upper bound or unknown)` : ""),
    ...notes,
  );
  return `${lines.join("\n")}\n`;
}
