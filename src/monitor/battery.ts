// The battery's analysis of imported responses: per model x track the 2x2 summary, per model the
// mean delta over T1-T5 with its profile and the T6 choice mix, and across models the dissociation
// and the split-half reliability.
import { pearson, spearman } from "../common/index.ts";
import { compareModels, PROSPECTIVE_TRACK, RETROSPECTIVE_TRACKS, TRACKS, type Track } from "./canonical.ts";
import { type LeaderboardRow, rankModels } from "./leaderboard.ts";
import {
  classifyProfile,
  type MonitoringSummary,
  meanDefined,
  type Profile,
  type ProfileRule,
  summariseMonitoring,
} from "./metrics.ts";
import { DEFAULT_PAYOFF, type PayoffSchedule, payoff } from "./payoff.ts";
import type { PublishedResponse } from "./published.ts";
import { bootstrapDelta, type DeltaInterval, type SplitHalf, splitHalf } from "./statistics.ts";

export interface TrackRow {
  model: string;
  track: Track;
  summary: MonitoringSummary;
  interval: DeltaInterval | null;
}

export interface ModelRow {
  model: string;
  /** Mean over T1-T5 of the defined deltas, of the KEEP rates, and of the accuracies (0..1). */
  meanDelta: number | null;
  meanKeepRate: number | null;
  meanAccuracy: number | null;
  profile: Profile;
  /** T6: percent of ANSWER_DIRECTLY, REQUEST_HINT, DECLINE choices; mean payoff under the schedule. */
  choices: { direct: number; hint: number; decline: number; n: number } | null;
  meanPayoff: number | null;
  /** T6: mean of the `score` column as published (a check on the schedule). */
  meanPublishedScore: number | null;
}

export interface BatteryAnalysis {
  tracks: TrackRow[];
  models: ModelRow[];
  /** Across models: mean delta (T1-T5) vs ANSWER_DIRECTLY rate (T6). */
  dissociation: { n: number; pearson: number | null; spearman: number | null };
  /** Mean delta over T1+T2+T4 vs T3+T5+T6 (the battery's halves; >= 2 defined tracks each side). */
  splitHalf: SplitHalf;
  /** The battery's leaderboard: accuracy and metacognition ranks of the models with a mean delta. */
  leaderboard: LeaderboardRow[];
}

const HALF_A: readonly Track[] = ["T1", "T2", "T4"];
const HALF_B: readonly Track[] = ["T3", "T5", "T6"];

function choiceMix(responses: readonly PublishedResponse[], schedule: PayoffSchedule) {
  const t6 = responses.filter((r) => r.pathChoice !== null);
  if (t6.length === 0) return { choices: null, meanPayoff: null, meanPublishedScore: null };
  const share = (c: string) => (100 * t6.filter((r) => r.pathChoice === c).length) / t6.length;
  const earned = t6.map((r) =>
    payoff(schedule, r.pathChoice === "REQUEST_HINT" ? "REQUEST_SPEC" : r.pathChoice!, r.correct),
  );
  return {
    choices: {
      direct: share("ANSWER_DIRECTLY"),
      hint: share("REQUEST_HINT"),
      decline: share("DECLINE"),
      n: t6.length,
    },
    meanPayoff: earned.reduce((a, b) => a + b, 0) / earned.length,
    meanPublishedScore: meanDefined(t6.map((r) => r.score)),
  };
}

export interface BatteryOptions {
  schedule?: PayoffSchedule;
  seed?: number;
  resamples?: number;
  profileRule?: ProfileRule;
  /** False: no bootstrap intervals (null), for the CSV forms that do not show them. */
  intervals?: boolean;
}

export function analyseBattery(
  responses: readonly PublishedResponse[],
  options: BatteryOptions = {},
): BatteryAnalysis {
  const models = [...new Set(responses.map((r) => r.model))].sort(compareModels);
  const tracks: TrackRow[] = [];
  const modelRows: ModelRow[] = [];
  const halves: { a: number | null; b: number | null }[] = [];
  for (const model of models) {
    const own = responses.filter((r) => r.model === model);
    const byTrack = new Map<Track, MonitoringSummary>();
    for (const track of TRACKS) {
      const cell = own.filter((r) => r.track === track);
      if (cell.length === 0) continue;
      const summary = summariseMonitoring(cell);
      byTrack.set(track, summary);
      const interval = options.intervals === false ? null : bootstrapDelta(cell, options);
      tracks.push({ model, track, summary, interval });
    }
    const retro = RETROSPECTIVE_TRACKS.flatMap((t) => byTrack.get(t) ?? []);
    const meanDelta = meanDefined(retro.map((s) => s.withdrawDelta));
    const meanKeepRate = meanDefined(retro.map((s) => s.keepRate));
    const mix = choiceMix(
      own.filter((r) => r.track === PROSPECTIVE_TRACK),
      options.schedule ?? DEFAULT_PAYOFF,
    );
    const declineRate = mix.choices?.decline ?? null;
    modelRows.push({
      model,
      meanDelta,
      meanKeepRate,
      meanAccuracy: meanDefined(retro.map((s) => s.accuracy)),
      profile: classifyProfile(
        { keepRate: meanKeepRate, delta: meanDelta, declineRate },
        options.profileRule,
      ),
      ...mix,
    });
    const half = (ts: readonly Track[]) => {
      const defined = ts.flatMap((t) => byTrack.get(t)?.withdrawDelta ?? []);
      return defined.length >= 2 ? meanDefined(defined) : null;
    };
    halves.push({ a: half(HALF_A), b: half(HALF_B) });
  }
  const paired = modelRows.filter((m) => m.meanDelta !== null && m.choices !== null);
  const deltas = paired.map((m) => m.meanDelta!);
  const direct = paired.map((m) => m.choices!.direct);
  return {
    tracks,
    models: modelRows,
    dissociation: { n: paired.length, pearson: pearson(deltas, direct), spearman: spearman(deltas, direct) },
    splitHalf: splitHalf(halves),
    leaderboard: rankModels(modelRows),
  };
}
