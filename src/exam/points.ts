// Point schemes of an exam: fixed (10 each), random (seeded 1-15), aligned with difficulty, reversed.
import { z } from "zod";
import type { Rng } from "./random.ts";

export const PointScheme = z.enum(["fixed", "random", "aligned", "reversed"]);
export type PointScheme = z.infer<typeof PointScheme>;

export const FIXED_POINTS = 10;
export const MIN_POINTS = 1;
export const MAX_POINTS = 15;

/** Does the scheme read difficulties? */
export function needsDifficulty(scheme: PointScheme): boolean {
  return scheme === "aligned" || scheme === "reversed";
}

/**
 * Points of the units, in the order given. aligned: floor(1 + 14 (d - dmin) / (dmax - dmin));
 * reversed: floor(15 - 14 (d - dmin) / (dmax - dmin)); both all 10 when every difficulty is equal.
 * random draws integers 1-15 from `rng`, independent of difficulty and position.
 */
export function assignPoints(scheme: PointScheme, difficulties: readonly number[], rng: Rng): number[] {
  if (scheme === "fixed") return difficulties.map(() => FIXED_POINTS);
  if (scheme === "random") return difficulties.map(() => rng.int(MIN_POINTS, MAX_POINTS));
  const low = Math.min(...difficulties);
  const high = Math.max(...difficulties);
  if (high === low) return difficulties.map(() => FIXED_POINTS);
  const span = MAX_POINTS - MIN_POINTS;
  return difficulties.map((d) => {
    const share = (d - low) / (high - low);
    const exact = scheme === "aligned" ? MIN_POINTS + span * share : MAX_POINTS - span * share;
    // 1e-9 keeps a value that is an integer on paper (e.g. 0.3 / 0.6 * 14 = 7) from flooring to 6
    return Math.floor(exact + 1e-9);
  });
}
