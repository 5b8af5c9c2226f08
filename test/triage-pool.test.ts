// Triage pools: item units with their values, and the injected variants at ratios r.
import { describe, expect, it } from "vitest";
import type { ItemPool } from "../src/task/index.ts";
import { parseItemPool } from "../src/task/index.ts";
import { injectedVariants, PoolError, type TriageUnit, unitsFromItems } from "../src/triage/index.ts";

const unit = (id: string, unsolvable = false): TriageUnit => ({
  id,
  text: id,
  value: 1,
  unsolvable,
  source: { kind: "task", task: id, condition: unsolvable ? "-A" : "+A" },
});

describe("item units", () => {
  it("take value 1 by default and the item's own integer value otherwise; a fractional value is an error", () => {
    const text =
      '{"id": "a", "prompt": "q", "answer": 1}\n{"id": "b", "prompt": "q", "answer": 1, "value": 3}\n';
    const pool: ItemPool = { name: "p", file: "items/p.jsonl", items: parseItemPool(text, "items/p.jsonl") };
    expect(unitsFromItems(pool).map((u) => [u.id, u.value])).toEqual([
      ["a", 1],
      ["b", 3],
    ]);
    const bad: ItemPool = {
      name: "p",
      file: "items/p.jsonl",
      items: parseItemPool('{"id": "c", "prompt": "q", "answer": 1, "value": 1.5}\n', "items/p.jsonl"),
    };
    expect(() => unitsFromItems(bad)).toThrow('items/p.jsonl (item "c", value)');
  });
});

describe("injection", () => {
  const solvable = ["s1", "s2", "s3", "s4", "s5"].map((id) => unit(id));
  const supply = ["u1", "u2", "u3", "u4", "u5"].map((id) => unit(id, true));

  it("replaces round(r * n) units in place: r = 0 none, 0.5 -> round(2.5) = 3, r = 1 all five", () => {
    const [zero, half, all] = injectedVariants(solvable, supply, [0, 0.5, 1], 0);
    expect(zero!.units.map((u) => u.id)).toEqual(["s1", "s2", "s3", "s4", "s5"]);
    expect(zero!.unsolvable).toEqual([]);
    expect(half!.unsolvable).toHaveLength(3);
    expect(half!.units).toHaveLength(5);
    // the kept solvable units stay in their positions
    half!.units.forEach((u, i) => {
      if (!u.unsolvable) expect(u.id).toBe(`s${i + 1}`);
    });
    expect(all!.unsolvable.sort()).toEqual(["u1", "u2", "u3", "u4", "u5"]);
  });

  it("is reproducible for a seed and nested across ratios (the units replaced at 0.25 are replaced at 0.5)", () => {
    const a = injectedVariants(solvable, supply, [0.25, 0.5], 3);
    const b = injectedVariants(solvable, supply, [0.25, 0.5], 3);
    expect(a).toEqual(b);
    for (const id of a[0]!.unsolvable) expect(a[1]!.unsolvable).toContain(id);
  });

  it("says when the pool has too few unsolvable units for a ratio", () => {
    expect(() => injectedVariants(solvable, supply.slice(0, 2), [1], 0)).toThrow(PoolError);
    expect(() => injectedVariants(solvable, supply.slice(0, 2), [1], 0)).toThrow("only 2 unsolvable");
  });
});
