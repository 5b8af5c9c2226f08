// The exam plan: base exams drawn (seeded) from a pool, reused across every scheme, ordering and
// prompt, so that two exams of a comparison differ in one factor only.
import { z } from "zod";
import { assignPoints, needsDifficulty, PointScheme } from "./points.ts";
import { ExamPrompt } from "./prompts.ts";
import { seededRng, shuffled } from "./random.ts";

export const Ordering = z.enum(["random", "ascending", "descending"]);
export type Ordering = z.infer<typeof Ordering>;

/** A unit of the pool as the plan sees it: its id and its difficulty (declared or measured), if any. */
export interface PoolUnit {
  id: string;
  difficulty: number | null;
}

export const PlannedUnit = z.object({
  id: z.string(),
  /** 1-based position in the exam as presented. */
  position: z.number().int().positive(),
  points: z.number().int().positive(),
  difficulty: z.number().nullable(),
});
export type PlannedUnit = z.infer<typeof PlannedUnit>;

export const ExamSpec = z.object({
  /** e.g. `n10-e2-random-ascending-baseline`: unique in a run, the resume key. */
  key: z.string(),
  n: z.number().int().positive(),
  /** 0-based index of the base exam among those of size n. */
  exam: z.number().int().nonnegative(),
  scheme: PointScheme,
  order: Ordering,
  prompt: ExamPrompt,
  /**
   * The reasoning prompt asks the model to name each question it works on (`--name-questions`).
   * Records made before the option existed always asked: hence the default.
   */
  nameQuestions: z.boolean().default(true),
  units: z.array(PlannedUnit),
});
export type ExamSpec = z.infer<typeof ExamSpec>;

export const PlanFactors = z.object({
  seed: z.number().int(),
  sizes: z.array(z.number().int().positive()).min(1),
  examsPerSize: z.number().int().positive(),
  schemes: z.array(PointScheme).min(1),
  orders: z.array(Ordering).min(1),
  prompts: z.array(ExamPrompt).min(1),
  /** `--name-questions` (off unless given; runs made before the option existed always asked). */
  nameQuestions: z.boolean().default(true),
});
export type PlanFactors = z.infer<typeof PlanFactors>;

export class PlanError extends Error {
  override name = "PlanError";
}

/** The ids of base exam `exam` of size n: a seeded draw without replacement, in drawn order. */
export function drawBaseExam(pool: readonly PoolUnit[], n: number, seed: number, exam: number): PoolUnit[] {
  if (n > pool.length)
    throw new PlanError(`an exam of ${n} units needs a pool of at least ${n} (it has ${pool.length})`);
  return shuffled(pool, seededRng(seed, `n${n}`, `exam${exam}`, "draw")).slice(0, n);
}

/** The units in presentation order: random (seeded), or by difficulty (ties keep the drawn order). */
export function orderUnits<T extends PoolUnit>(
  units: readonly T[],
  order: Ordering,
  seedParts: Array<string | number>,
): T[] {
  if (order === "random") return shuffled(units, seededRng(...seedParts, "order"));
  const sign = order === "ascending" ? 1 : -1;
  return units
    .map((unit, drawn) => ({ unit, drawn }))
    .sort((a, b) => sign * (a.unit.difficulty! - b.unit.difficulty!) || a.drawn - b.drawn)
    .map((x) => x.unit);
}

function requireDifficulties(units: readonly PoolUnit[], why: string): void {
  const missing = units.filter((u) => u.difficulty === null).map((u) => u.id);
  if (missing.length > 0)
    throw new PlanError(
      `${why} needs a difficulty for every unit; none declared or measured for: ${missing.slice(0, 5).join(", ")}${missing.length > 5 ? ", ..." : ""}`,
    );
}

/** Every exam of the plan: sizes x base exams x schemes x orders x prompts. */
export function planExams(pool: readonly PoolUnit[], f: PlanFactors): ExamSpec[] {
  const specs: ExamSpec[] = [];
  for (const n of f.sizes) {
    for (let exam = 0; exam < f.examsPerSize; exam++) {
      const base = drawBaseExam(pool, n, f.seed, exam);
      const baseSeed = [f.seed, `n${n}`, `exam${exam}`];
      for (const scheme of f.schemes) {
        if (needsDifficulty(scheme)) requireDifficulties(base, `the ${scheme} point scheme`);
        // points follow the unit, not its position: the same unit keeps its points in every ordering
        const points = assignPoints(
          scheme,
          base.map((u) => u.difficulty ?? 0),
          seededRng(...baseSeed, "points"),
        );
        const withPoints = base.map((u, i) => ({ ...u, points: points[i]! }));
        for (const order of f.orders) {
          if (order !== "random") requireDifficulties(base, `the ${order} ordering`);
          const ordered = orderUnits(withPoints, order, baseSeed);
          for (const prompt of f.prompts) {
            specs.push({
              key: `n${n}-e${exam}-${scheme}-${order}-${prompt}`,
              n,
              exam,
              scheme,
              order,
              prompt,
              nameQuestions: f.nameQuestions,
              units: ordered.map((u, i) => ({
                id: u.id,
                position: i + 1,
                points: u.points,
                difficulty: u.difficulty,
              })),
            });
          }
        }
      }
    }
  }
  return specs;
}
