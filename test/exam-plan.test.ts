// Exam plans: the four point schemes on hand cases (equal difficulties included), the orderings, and
// seeded base exams reused across schemes, orders and prompts.
import { describe, expect, it } from "vitest";
import {
  assignPoints,
  drawBaseExam,
  orderUnits,
  PlanError,
  type PoolUnit,
  planExams,
  seededRng,
} from "../src/exam/index.ts";

const rng = () => seededRng("test");

describe("assignPoints", () => {
  it("fixed gives every unit 10", () => {
    expect(assignPoints("fixed", [0, 5, 9], rng())).toEqual([10, 10, 10]);
  });

  it("aligned is floor(1 + 14 (d - dmin) / (dmax - dmin))", () => {
    // d = 0, 1, 2, 4 (dmin 0, dmax 4): shares 0, 1/4, 1/2, 1
    // floor(1 + 0) = 1, floor(1 + 3.5) = 4, floor(1 + 7) = 8, floor(1 + 14) = 15
    expect(assignPoints("aligned", [0, 1, 2, 4], rng())).toEqual([1, 4, 8, 15]);
  });

  it("reversed is floor(15 - 14 (d - dmin) / (dmax - dmin))", () => {
    // floor(15 - 0) = 15, floor(15 - 3.5) = 11, floor(15 - 7) = 8, floor(15 - 14) = 1
    expect(assignPoints("reversed", [0, 1, 2, 4], rng())).toEqual([15, 11, 8, 1]);
  });

  it("floors values that are integers on paper despite floating point", () => {
    // d = 0.1, 0.4, 0.7: the middle share is 0.3 / 0.6 = 1/2 exactly on paper, so 1 + 7 = 8 and 15 - 7 = 8
    // (0.2, 0.5, 0.8 the same); a plain floor of the double result lands on 7
    // (in doubles, 15 - 14 x share is 7.999999999999998 for the first and 1 + 14 x share the same for the second)
    expect(assignPoints("reversed", [0.1, 0.4, 0.7], rng())[1]).toBe(8);
    expect(assignPoints("aligned", [0.2, 0.5, 0.8], rng())[1]).toBe(8);
  });

  it("aligned and reversed give all 10 when every difficulty is equal", () => {
    expect(assignPoints("aligned", [3, 3, 3], rng())).toEqual([10, 10, 10]);
    expect(assignPoints("reversed", [0.5, 0.5], rng())).toEqual([10, 10]);
  });

  it("random draws seeded integers 1-15, independent of the difficulties", () => {
    const a = assignPoints("random", new Array(1500).fill(0), seededRng(7, "points"));
    const b = assignPoints(
      "random",
      Array.from({ length: 1500 }, (_, i) => i),
      seededRng(7, "points"),
    );
    expect(b).toEqual(a);
    expect(assignPoints("random", new Array(1500).fill(0), seededRng(8, "points"))).not.toEqual(a);
    // 1500 draws over 15 values: about 100 each; every value 1..15 appears and nothing else
    expect([...new Set(a)].sort((x, y) => x - y)).toEqual(Array.from({ length: 15 }, (_, i) => i + 1));
    for (let v = 1; v <= 15; v++) expect(a.filter((x) => x === v).length).toBeGreaterThan(50);
  });
});

describe("orderings", () => {
  const units: PoolUnit[] = [
    { id: "a", difficulty: 3 },
    { id: "b", difficulty: 1 },
    { id: "c", difficulty: 2 },
    { id: "d", difficulty: 1 },
  ];
  it("ascending and descending sort by difficulty, ties keeping the drawn order", () => {
    expect(orderUnits(units, "ascending", [1]).map((u) => u.id)).toEqual(["b", "d", "c", "a"]);
    expect(orderUnits(units, "descending", [1]).map((u) => u.id)).toEqual(["a", "c", "b", "d"]);
  });
  it("random is a seeded permutation", () => {
    const once = orderUnits(units, "random", [1]).map((u) => u.id);
    expect(orderUnits(units, "random", [1]).map((u) => u.id)).toEqual(once);
    expect([...once].sort()).toEqual(["a", "b", "c", "d"]);
  });
});

describe("planExams", () => {
  const pool: PoolUnit[] = Array.from({ length: 10 }, (_, i) => ({ id: `u${i}`, difficulty: i % 4 }));
  const factors = {
    seed: 2,
    sizes: [3, 5],
    examsPerSize: 2,
    schemes: ["random", "aligned"] as const,
    orders: ["random", "ascending"] as const,
    prompts: ["baseline", "planning"] as const,
    nameQuestions: false,
  };
  const specs = planExams(pool, {
    ...factors,
    schemes: [...factors.schemes],
    orders: [...factors.orders],
    prompts: [...factors.prompts],
  });

  it("crosses sizes x exams x schemes x orders x prompts, one unique key each", () => {
    // 2 sizes x 2 exams x 2 schemes x 2 orders x 2 prompts = 32
    expect(specs.length).toBe(32);
    expect(new Set(specs.map((s) => s.key)).size).toBe(32);
    expect(specs[0]!.key).toBe("n3-e0-random-random-baseline");
  });

  it("reuses one base exam (the same units, the same points per unit) across schemes, orders and prompts", () => {
    const base = specs.filter((s) => s.n === 5 && s.exam === 1);
    expect(base.length).toBe(8);
    const ids = (s: (typeof specs)[number]) => s.units.map((u) => u.id).sort();
    for (const s of base) expect(ids(s)).toEqual(ids(base[0]!));
    const pointsOf = (s: (typeof specs)[number]) => Object.fromEntries(s.units.map((u) => [u.id, u.points]));
    const randomScheme = base.filter((s) => s.scheme === "random");
    for (const s of randomScheme) expect(pointsOf(s)).toEqual(pointsOf(randomScheme[0]!));
    // the two prompts of one scheme and order present the same exam
    const [baseline, planning] = base.filter((s) => s.scheme === "aligned" && s.order === "random");
    expect(planning!.units).toEqual(baseline!.units);
    // positions run 1..n in presentation order; ascending really ascends
    const ascending = base.find((s) => s.scheme === "aligned" && s.order === "ascending")!;
    expect(ascending.units.map((u) => u.position)).toEqual([1, 2, 3, 4, 5]);
    const d = ascending.units.map((u) => u.difficulty!);
    expect([...d].sort((x, y) => x - y)).toEqual(d);
  });

  it("draws the same base exam for the same seed and another for another seed", () => {
    const again = drawBaseExam(pool, 5, 2, 1).map((u) => u.id);
    expect(again).toEqual(drawBaseExam(pool, 5, 2, 1).map((u) => u.id));
    expect(new Set(again).size).toBe(5);
    const others = [3, 4, 5, 6].map((seed) =>
      drawBaseExam(pool, 5, seed, 1)
        .map((u) => u.id)
        .join(),
    );
    expect(others.some((o) => o !== again.join())).toBe(true);
  });

  it("refuses an exam larger than the pool, and a difficulty scheme without difficulties, naming the unit", () => {
    expect(() => drawBaseExam(pool, 11, 2, 0)).toThrowError(/needs a pool of at least 11 \(it has 10\)/);
    const bare: PoolUnit[] = [
      { id: "x", difficulty: 1 },
      { id: "y", difficulty: null },
    ];
    const plan = (scheme: "aligned" | "fixed", order: "random" | "ascending") =>
      planExams(bare, {
        seed: 1,
        sizes: [2],
        examsPerSize: 1,
        nameQuestions: false,
        schemes: [scheme],
        orders: [order],
        prompts: ["baseline"],
      });
    expect(() => plan("aligned", "random")).toThrowError(PlanError);
    expect(() => plan("aligned", "random")).toThrowError(/aligned point scheme needs a difficulty .*: y/);
    expect(() => plan("fixed", "ascending")).toThrowError(/ascending ordering needs a difficulty .*: y/);
    expect(plan("fixed", "random").length).toBe(1);
  });
});
