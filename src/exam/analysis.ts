// One exam's analysis: per-unit effort, solving order and work-set membership from the attribution,
// the score, coverage and zero-token rate, and the exam's rank statistics.
import { spearman } from "../common/index.ts";
import type { Attribution } from "./attribution.ts";
import { workSet } from "./attribution.ts";
import type { PlannedUnit } from "./plan.ts";
import type { ExamStats, UnitResult } from "./record.ts";
import { densityOverlap, partialSpearman, valueDensity } from "./stats.ts";

/** A unit measured alone at a high budget: accuracy and mean tokens (value density, difficulty). */
export interface ReferenceEntry {
  accuracy: number;
  tokens: number;
}

export interface UnitOutcome {
  /** Score in [0, 1]: 1 or 0 for an item, the verdict's score for a task. */
  score: number;
  correct: boolean;
  answer: string | null;
}

export interface ExamAnalysis {
  units: UnitResult[];
  score: number;
  coverage: number;
  zeroRate: number;
  unattributedTokens: number;
  stats: ExamStats;
}

export function analyseExam(
  planned: readonly PlannedUnit[],
  outcomes: readonly UnitOutcome[],
  attribution: Attribution,
  tau: number,
  reference: ReadonlyMap<string, ReferenceEntry> | null,
): ExamAnalysis {
  const { work, coverage, zeroRate } = workSet(attribution.tokens, tau);
  const inWork = new Set(work);
  const densities = planned.map((u) => {
    const ref = reference?.get(u.id);
    return ref ? valueDensity(u.points, ref.accuracy, ref.tokens) : null;
  });
  const units: UnitResult[] = planned.map((u, i) => ({
    ...u,
    ...outcomes[i]!,
    tokens: attribution.tokens[i]!,
    solvingOrder: attribution.order[i]!,
    inWork: inWork.has(i),
    // JSON has no infinity: an infinitely dense unit is recorded as null with its flag
    density: Number.isFinite(densities[i]) ? densities[i]! : null,
    densityInfinite: densities[i] === Number.POSITIVE_INFINITY,
  }));
  const totalPoints = units.reduce((s, u) => s + u.points, 0);
  const score = units.reduce((s, u) => s + u.points * u.score, 0) / totalPoints;

  const effort = units.map((u) => u.tokens);
  const position = units.map((u) => u.position);
  const value = units.map((u) => u.points);
  const hasDifficulty = units.every((u) => u.difficulty !== null);
  const difficulty = units.map((u) => u.difficulty ?? 0);
  // solving order exists only for units that got tokens
  const worked = units.filter((u) => u.solvingOrder !== null);
  const allDense = densities.every((d) => d !== null);
  const stats: ExamStats = {
    effortPosition: spearman(effort, position),
    effortValue: spearman(effort, value),
    effortDifficulty: hasDifficulty ? spearman(effort, difficulty) : null,
    orderPosition: spearman(
      worked.map((u) => u.solvingOrder!),
      worked.map((u) => u.position),
    ),
    partialEffortValue: partialSpearman(effort, value, hasDifficulty ? [position, difficulty] : [position]),
    densityOverlap: allDense ? densityOverlap(work, densities as number[]) : null,
  };
  return { units, score, coverage, zeroRate, unattributedTokens: attribution.unattributed, stats };
}
