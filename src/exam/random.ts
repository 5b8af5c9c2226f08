// Seeded randomness of the exam protocol: one generator per named purpose (draw, points, order,
// bootstrap), so that adding a factor never shifts the draws of another.
import { createHash } from "node:crypto";
import { uniformInt } from "pure-rand/distribution/uniformInt";
import { xoroshiro128plus } from "pure-rand/generator/xoroshiro128plus";

export interface Rng {
  /** A uniform integer in [from, to], both included. */
  int(from: number, to: number): number;
}

/** A generator seeded by the parts, e.g. seededRng(2, "n10", "exam3", "points"). */
export function seededRng(...parts: Array<string | number>): Rng {
  const seed = createHash("sha256").update(parts.join("\u0000")).digest().readInt32LE(0);
  const generator = xoroshiro128plus(seed);
  return { int: (from, to) => uniformInt(generator, from, to) };
}

/** A seeded Fisher-Yates shuffle (a new array). */
export function shuffled<T>(items: readonly T[], rng: Rng): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
