// The monitoring analysis of a kgate run: trial records with probe results, per configuration x
// task x condition cell and per configuration, with the gated twist (the WITHDRAW rate under -A,
// where every answer is wrong by construction).
import type { TrialRecord } from "../trial/index.ts";
import {
  classifyProfile,
  type MonitoredResponse,
  type MonitoringSummary,
  type Profile,
  summariseMonitoring,
} from "./metrics.ts";
import { bootstrapDelta, type Interval } from "./statistics.ts";

export interface RunCell {
  agent: string;
  task: string;
  condition: string;
  summary: MonitoringSummary;
  interval: Interval | null;
}

export interface RunConfiguration {
  agent: string;
  /** agent digest and model, as the records give them (provenance). */
  digest: string;
  model: string | null;
  summary: MonitoringSummary;
  interval: Interval | null;
  profile: Profile;
  /** Percent WITHDRAW among its -A trials with a readable reply; null without any. */
  withdrawRateMinusA: number | null;
  /** Probe tokens (input + output) and calls, apart from the trials'. */
  probeTokens: number;
  probeCalls: number;
}

export interface RunMonitoring {
  cells: RunCell[];
  configurations: RunConfiguration[];
  /** Records left out: no probe result, an infrastructure error, or no verdict. */
  skipped: number;
}

const responseOf = (r: TrialRecord): MonitoredResponse => ({
  correct: r.verdict.status === "pass",
  keep: r.monitor?.keep ?? null,
  bet: r.monitor?.bet ?? null,
});

export function analyseRunRecords(
  records: readonly TrialRecord[],
  options: { seed?: number; resamples?: number } = {},
): RunMonitoring {
  const usable = records.filter(
    (r) => r.monitor !== null && r.error?.class !== "infra" && r.verdict.status !== "unverified",
  );
  const groups = (key: (r: TrialRecord) => string) => {
    const map = new Map<string, TrialRecord[]>();
    for (const r of usable) map.set(key(r), [...(map.get(key(r)) ?? []), r]);
    return [...map.values()];
  };
  const cells = groups((r) => `${r.agent.name}\t${r.agent.digest}\t${r.task.id}\t${r.condition}`).map(
    (rs) => ({
      agent: rs[0]!.agent.name,
      task: rs[0]!.task.id,
      condition: rs[0]!.condition,
      summary: summariseMonitoring(rs.map(responseOf)),
      interval: bootstrapDelta(rs.map(responseOf), options),
    }),
  );
  const configurations = groups((r) => `${r.agent.name}\t${r.agent.digest}`).map((rs) => {
    const summary = summariseMonitoring(rs.map(responseOf));
    const minusA = rs.filter((r) => r.condition === "-A" && r.monitor?.keep);
    const withdrawn = minusA.filter((r) => r.monitor?.keep === "WITHDRAW").length;
    return {
      agent: rs[0]!.agent.name,
      digest: rs[0]!.agent.digest,
      model: rs[0]!.agent.model,
      summary,
      interval: bootstrapDelta(rs.map(responseOf), options),
      profile: classifyProfile(summary.keepRate, summary.withdrawDelta),
      withdrawRateMinusA: minusA.length === 0 ? null : (100 * withdrawn) / minusA.length,
      probeTokens: rs.reduce((t, r) => t + r.monitor!.usage.inputTokens + r.monitor!.usage.outputTokens, 0),
      probeCalls: rs.reduce((t, r) => t + r.monitor!.usage.modelCalls, 0),
    };
  });
  return { cells, configurations, skipped: records.length - usable.length };
}
