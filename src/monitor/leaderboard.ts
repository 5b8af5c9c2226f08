// The battery's "probe-adjusted" leaderboard: per model the mean accuracy and mean withdraw delta over
// T1-T5, ranked both ways, with the profile; and its exact CSV (outputs/probe_adjusted_leaderboard.csv).
import { spreadsheetCell } from "../report/index.ts";
import { roundedRepr } from "./fixed.ts";
import type { Profile } from "./metrics.ts";

export interface LeaderboardInput {
  model: string;
  meanDelta: number | null;
  meanAccuracy: number | null;
  profile: Profile;
}

export interface LeaderboardRow {
  model: string;
  /** 1 = the highest mean accuracy (T1-T5). */
  accuracyRank: number;
  /** 1 = the highest mean withdraw delta (T1-T5). */
  metacognitionRank: number;
  meanDelta: number;
  meanAccuracy: number;
  profile: Profile;
}

/** Byte-wise (code unit) order of model names, as Python sorts strings. */
const byName = (a: { model: string }, b: { model: string }) =>
  a.model < b.model ? -1 : a.model > b.model ? 1 : 0;

/**
 * The ranked models, by metacognition rank. Only models with a defined mean delta are ranked (as the
 * battery's script, which leaves the others out). Ties keep the byte-wise order of the names (the
 * script sorts stably over names in that order), so every rank is a distinct integer.
 */
export function rankModels(models: readonly LeaderboardInput[]): LeaderboardRow[] {
  const ranked = models
    .filter(
      (m): m is LeaderboardInput & { meanDelta: number; meanAccuracy: number } =>
        m.meanDelta !== null && m.meanAccuracy !== null,
    )
    .sort(byName);
  const rankBy = (value: (m: (typeof ranked)[number]) => number) => {
    const order = [...ranked].sort((a, b) => value(b) - value(a));
    return new Map(order.map((m, i) => [m.model, i + 1]));
  };
  const accuracy = rankBy((m) => m.meanAccuracy);
  const metacognition = rankBy((m) => m.meanDelta);
  return ranked
    .map((m) => ({
      model: m.model,
      accuracyRank: accuracy.get(m.model)!,
      metacognitionRank: metacognition.get(m.model)!,
      meanDelta: m.meanDelta,
      meanAccuracy: m.meanAccuracy,
      profile: m.profile,
    }))
    .sort((a, b) => a.metacognitionRank - b.metacognitionRank);
}

export const LEADERBOARD_COLUMNS = [
  "model",
  "accuracy_rank",
  "mean_withdraw_delta",
  "metacognition_rank",
  "mean_accuracy",
  "profile",
] as const;

const PUBLISHED_PROFILE: Record<Profile, string> = { A: "A", B: "B", C: "C", unclassified: "Unclassified" };

/**
 * The leaderboard as the battery writes it: the delta rounded to 1 decimal and the accuracy to 3,
 * printed as Python prints a rounded float (9.5, -1.0, 0.93), "Unclassified" capitalised.
 */
export function leaderboardCsv(rows: readonly LeaderboardRow[]): string {
  const lines = [
    LEADERBOARD_COLUMNS.join(","),
    ...rows.map((r) =>
      [
        spreadsheetCell(r.model),
        String(r.accuracyRank),
        roundedRepr(r.meanDelta, 1),
        String(r.metacognitionRank),
        roundedRepr(r.meanAccuracy, 3),
        PUBLISHED_PROFILE[r.profile],
      ].join(","),
    ),
  ];
  return `${lines.join("\n")}\n`;
}
