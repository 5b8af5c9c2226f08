// Triage pools: units (items from items/<pool>.jsonl, or gated tasks under a condition, sandboxed or
// inline), their values,
// and the injected variants at ratios r where round(r * n) units are replaced by unsolvable ones.
import { uniformInt } from "pure-rand/distribution/uniformInt";
import { xoroshiro128plus } from "pure-rand/generator/xoroshiro128plus";
import type { Item, ItemPool } from "../task/index.ts";

export type UnitSource =
  | { kind: "item"; pool: string; item: Item }
  | { kind: "task"; task: string; condition: string }
  /** A gated task answered in its inline form (one model call, no sandbox). */
  | { kind: "inline"; task: string; condition: string };

export interface TriageUnit {
  id: string;
  /** What the planner is shown and the unit runs with. */
  text: string;
  value: number;
  /** Unsolvable by construction (an item marked so, or a gated task under -A). */
  unsolvable: boolean;
  source: UnitSource;
}

export class PoolError extends Error {
  override name = "PoolError";
}

/** The units of an item pool; values default to 1 (the paper's choice) and must be positive integers. */
export function unitsFromItems(pool: ItemPool): TriageUnit[] {
  return pool.items.map((item) => {
    const value = item.value ?? 1;
    if (!Number.isInteger(value))
      throw new PoolError(`${pool.file} (item "${item.id}", value): triage values must be positive integers`);
    return {
      id: item.id,
      text: item.prompt,
      value,
      unsolvable: item.unsolvable,
      source: { kind: "item", pool: pool.name, item },
    };
  });
}

export interface PoolVariant {
  ratio: number;
  units: TriageUnit[];
  /** Ids of the unsolvable units in this variant. */
  unsolvable: string[];
}

function shuffled<T>(items: readonly T[], seed: number): T[] {
  const rng = xoroshiro128plus(seed);
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = uniformInt(rng, 0, i);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/**
 * The pool at each injection ratio r: of the n solvable units, round(r * n) (chosen by a seeded
 * shuffle) are replaced in place by unsolvable units: a unit's own twin when `twins` names one (a
 * gated task's -A run), else the next of the supply in seeded order (items marked unsolvable).
 */
export function injectedVariants(
  solvable: readonly TriageUnit[],
  supply: readonly TriageUnit[],
  ratios: readonly number[],
  seed: number,
  twins?: ReadonlyMap<string, TriageUnit>,
): PoolVariant[] {
  const n = solvable.length;
  const replaceOrder = shuffled(
    solvable.map((_, i) => i),
    seed,
  );
  // with twins, the supply is already in the pool's order: unit i is replaced by its own twin
  const supplyOrder = twins
    ? replaceOrder.map((i) => twins.get(solvable[i]!.id)!)
    : shuffled(supply, seed + 1);
  return ratios.map((ratio) => {
    const k = Math.round(ratio * n);
    if (k > supplyOrder.length)
      throw new PoolError(
        `injection ratio ${ratio} replaces ${k} of ${n} units but the pool has only ${supplyOrder.length} unsolvable ones`,
      );
    const units = [...solvable];
    replaceOrder.slice(0, k).forEach((position, i) => {
      units[position] = supplyOrder[i]!;
    });
    return { ratio, units, unsolvable: units.filter((u) => u.unsolvable).map((u) => u.id) };
  });
}
