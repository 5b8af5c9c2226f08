// The monitoring analysis of a kgate run: trial records with question results, per configuration x
// task x condition cell and per configuration, with the gated twist (the WITHDRAW rate under -A,
// where every answer is wrong by construction), the prospective choice mix with its payoff and the
// REQUEST_SPEC rate per configuration x gated task.
import { pearson, spearman } from "../common/index.ts";
import { errorsByKind, type FailureKind, outcomeOf, type TrialRecord } from "../record/index.ts";
import {
  classifyProfile,
  type MonitoredResponse,
  type MonitoringSummary,
  type Profile,
  type ProfileRule,
  summariseMonitoring,
} from "./metrics.ts";
import { DEFAULT_PAYOFF, type PayoffSchedule, payoff } from "./payoff.ts";
import { bootstrapDelta, type DeltaInterval, type SplitHalf, splitHalf } from "./statistics.ts";

export interface RunCell {
  agent: string;
  task: string;
  condition: string;
  summary: MonitoringSummary;
  interval: DeltaInterval | null;
}

export interface ProspectiveMix {
  /** Trials with a prospective choice asked; percentages are of those with a readable choice. */
  n: number;
  unparsed: number;
  direct: number | null;
  requestSpec: number | null;
  decline: number | null;
  /** Mean payoff under the schedule (an unreadable choice ran as ANSWER_DIRECTLY and is scored so). */
  meanPayoff: number | null;
  /** REQUEST_SPEC and DECLINE trials: not -A answers, so a calibration leaves them out of the -A cell's rate. */
  leftOut: number;
}

export interface RunConfiguration {
  agent: string;
  /** agent digest and model, as the records give them (provenance). */
  digest: string;
  model: string | null;
  summary: MonitoringSummary;
  interval: DeltaInterval | null;
  profile: Profile;
  /** Percent WITHDRAW among -A trials without the artefact and with a readable reply; null without any. */
  withdrawRateMinusA: number | null;
  prospective: ProspectiveMix | null;
  /** Question tokens (input + output) and calls, apart from the trials'. */
  probeTokens: number;
  probeCalls: number;
}

/**
 * The prospective choice on one gated task (item) of one configuration, i.e. its -A cell (the choice
 * is asked before -A trials only; every kgate task is gated).
 */
export interface RunTaskChoice extends ProspectiveMix {
  agent: string;
  task: string;
}

export interface RunMonitoring {
  cells: RunCell[];
  /** Per configuration x task, the REQUEST_SPEC rate before -A trials (the only ones asked). */
  requestSpecPerTask: RunTaskChoice[];
  configurations: RunConfiguration[];
  /** Across configurations with both: delta vs ANSWER_DIRECTLY rate. */
  dissociation: { n: number; pearson: number | null; spearman: number | null };
  /** Across configurations: delta of the even-indexed vs the odd-indexed trials, Spearman-Brown corrected. */
  splitHalf: SplitHalf;
  /** Records left out of the retrospective figures: no question result, an infrastructure error or no verdict. */
  skipped: number;
  /** By kind of the closed taxonomy: the errors of the trials left out, and of the questions (retrospective, prospective). */
  errors: {
    trials: Partial<Record<FailureKind, number>>;
    probes: Partial<Record<FailureKind, number>>;
  };
}

const retro = (r: TrialRecord) => r.monitor?.retrospective ?? null;

const responseOf = (r: TrialRecord): MonitoredResponse => ({
  correct: r.verdict.status === "pass",
  keep: retro(r)?.keep ?? null,
  bet: retro(r)?.bet ?? null,
});

function groupBy(records: readonly TrialRecord[], key: (r: TrialRecord) => string): TrialRecord[][] {
  const map = new Map<string, TrialRecord[]>();
  for (const r of records) map.set(key(r), [...(map.get(key(r)) ?? []), r]);
  return [...map.values()];
}

function prospectiveMix(records: readonly TrialRecord[], schedule: PayoffSchedule): ProspectiveMix | null {
  const asked = records.filter((r) => r.monitor?.prospective && outcomeOf(r) !== "infra");
  if (asked.length === 0) return null;
  const choices = asked.map((r) => r.monitor!.prospective!.choice);
  const readable = choices.filter((c) => c !== null).length;
  const share = (c: string) =>
    readable === 0 ? null : (100 * choices.filter((x) => x === c).length) / readable;
  // Each record is scored with the schedule its prompt stated (older records: the given one).
  const earned = asked.map((r) =>
    payoff(
      r.monitor!.prospective!.schedule ?? schedule,
      r.monitor!.prospective!.choice ?? "ANSWER_DIRECTLY",
      r.verdict.status === "pass",
    ),
  );
  return {
    n: asked.length,
    unparsed: asked.length - readable,
    direct: share("ANSWER_DIRECTLY"),
    requestSpec: share("REQUEST_SPEC"),
    decline: share("DECLINE"),
    meanPayoff: earned.reduce((a, b) => a + b, 0) / earned.length,
    leftOut: choices.filter((c) => c === "REQUEST_SPEC" || c === "DECLINE").length,
  };
}

function usageOf(records: readonly TrialRecord[]) {
  const usages = records.flatMap((r) => [r.monitor?.retrospective?.usage, r.monitor?.prospective?.usage]);
  const present = usages.filter((u) => u !== undefined);
  return {
    probeTokens: present.reduce((t, u) => t + u.inputTokens + u.outputTokens, 0),
    probeCalls: present.reduce((t, u) => t + u.modelCalls, 0),
  };
}

export function analyseRunRecords(
  records: readonly TrialRecord[],
  options: { seed?: number; resamples?: number; schedule?: PayoffSchedule; profileRule?: ProfileRule } = {},
): RunMonitoring {
  const probed = records.filter(
    (r) => retro(r) !== null && outcomeOf(r) !== "infra" && r.verdict.status !== "unverified",
  );
  const cells = groupBy(
    probed,
    (r) => `${r.agent.name}\t${r.agent.digest}\t${r.task.id}\t${r.condition}`,
  ).map((rs) => ({
    agent: rs[0]!.agent.name,
    task: rs[0]!.task.id,
    condition: rs[0]!.condition,
    summary: summariseMonitoring(rs.map(responseOf)),
    interval: bootstrapDelta(rs.map(responseOf), options),
  }));
  const withMonitor = records.filter((r) => r.monitor !== null);
  const configurations = groupBy(withMonitor, (r) => `${r.agent.name}\t${r.agent.digest}`).map((all) => {
    const rs = probed.filter((r) => all.includes(r));
    const summary = summariseMonitoring(rs.map(responseOf));
    const minusA = rs.filter(
      (r) => r.condition === "-A" && !r.monitor?.prospective?.artefactPlaced && retro(r)?.keep,
    );
    const withdrawn = minusA.filter((r) => retro(r)?.keep === "WITHDRAW").length;
    const prospective = prospectiveMix(all, options.schedule ?? DEFAULT_PAYOFF);
    return {
      agent: all[0]!.agent.name,
      digest: all[0]!.agent.digest,
      model: all[0]!.agent.model,
      summary,
      interval: bootstrapDelta(rs.map(responseOf), options),
      profile: classifyProfile(
        {
          keepRate: summary.keepRate,
          delta: summary.withdrawDelta,
          declineRate: prospective?.decline ?? null,
        },
        options.profileRule,
      ),
      withdrawRateMinusA: minusA.length === 0 ? null : (100 * withdrawn) / minusA.length,
      prospective,
      ...usageOf(all),
    };
  });
  const paired = configurations.filter(
    (c) => c.summary.withdrawDelta !== null && c.prospective?.direct != null,
  );
  const deltas = paired.map((c) => c.summary.withdrawDelta!);
  const direct = paired.map((c) => c.prospective!.direct!);
  const halves = groupBy(probed, (r) => `${r.agent.name}\t${r.agent.digest}`).map((rs) => ({
    a: summariseMonitoring(rs.filter((r) => r.index % 2 === 0).map(responseOf)).withdrawDelta,
    b: summariseMonitoring(rs.filter((r) => r.index % 2 === 1).map(responseOf)).withdrawDelta,
  }));
  const requestSpecPerTask = groupBy(
    withMonitor.filter((r) => r.monitor?.prospective),
    (r) => `${r.agent.name}\t${r.agent.digest}\t${r.task.id}`,
  ).flatMap((rs) => {
    const mix = prospectiveMix(rs, options.schedule ?? DEFAULT_PAYOFF);
    return mix ? [{ agent: rs[0]!.agent.name, task: rs[0]!.task.id, ...mix }] : [];
  });
  return {
    cells,
    requestSpecPerTask,
    configurations,
    dissociation: { n: paired.length, pearson: pearson(deltas, direct), spearman: spearman(deltas, direct) },
    splitHalf: splitHalf(halves),
    skipped: records.length - probed.length,
    errors: {
      trials: errorsByKind(records.filter((r) => outcomeOf(r) === "infra").map((r) => r.error)),
      probes: errorsByKind(
        withMonitor.flatMap((r) => [r.monitor?.retrospective?.error, r.monitor?.prospective?.error]),
      ),
    },
  };
}
