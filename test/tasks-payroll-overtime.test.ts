import { describe, expect, it } from "vitest";
import { loadTask } from "../src/task/index.ts";
import verifier, { roundPunch } from "../verifiers/payroll-overtime.ts";
import { describeGeneratorAndOracle, libraryTask } from "./support/library-task.ts";

const ID = "payroll-overtime";
const OUTPUT = "output/payroll.csv";
const KEY = "employee_id";
const library = libraryTask(ID, OUTPUT, KEY);
const { paths, task, environmentOf } = library;
const { artefact, default: defaults, variants } = verifier.conventions;
const committed = environmentOf(task);
const solved = (c: typeof artefact) => verifier.solve(committed, c)[OUTPUT];

describe("payroll-overtime reference solver", () => {
  const env = {
    "pay_period.txt":
      "pay_period_start=2026-03-02\npay_period_end=2026-03-15\nworkweek=Monday 00:00 to Sunday 23:59\n",
    "employees.csv": "employee_id,base_rate\nA,20.00\nB,30.00\n",
    "punches.csv": [
      "employee_id,clock_in,clock_out",
      "A,2026-03-02 06:57,2026-03-02 15:04",
      "A,2026-03-03 07:02,2026-03-03 13:01",
      "A,2026-03-04 19:57,2026-03-05 09:10",
      "B,2026-03-02 08:00,2026-03-02 14:00",
      ...[3, 4, 5, 6].map((d) => `B,2026-03-0${d} 08:00,2026-03-0${d} 18:30`),
      "B,2026-03-07 08:00,2026-03-07 13:00",
      "B,2026-03-09 08:00,2026-03-09 12:00",
    ].join("\n"),
  };

  it("pays a hand-checked case under the artefact's conventions", () => {
    // A, $20.00: 06:57 is 3 min past 06:54, a tie -> 07:00; 15:04 -> 15:06. 8.1 h > 6.0 -> meal: 7.6 h straight = 152.00.
    //   07:02 -> 07:00, 13:01 -> 13:00: exactly 6.0 h, no meal: 6.0 h straight = 120.00.
    //   19:57 -> 20:00 (night, rate 21.60); 09:10 -> 09:12 next day: 13.2 h - 0.5 = 12.7 h paid:
    //   8.0 x 21.60 = 172.80, 4.0 x 1.5 x 21.60 = 129.60, 0.7 x 2 x 21.60 = 30.24.
    //   Regular 21.6, overtime 4.0, double 0.7, gross 152 + 120 + 172.80 + 129.60 + 30.24 = 604.64.
    // B, $30.00, week 1: Mon 6.0 h straight; Tue-Fri 10.5 h - 0.5 = 10.0 h: 8 straight + 2 daily OT each,
    //   so 6 + 32 = 38 straight; Sat 5.0 h crosses 40: 2 regular + 3 weekly OT. Week 2: Mon 4.0 h regular.
    //   Regular 6 + 32 + 2 + 4 = 44, overtime 8 + 3 = 11; gross 44 x 30 + 11 x 45 = 1320 + 495 = 1815.00.
    expect(verifier.solve(env, artefact)[OUTPUT]).toEqual([
      { employee_id: "A", regular_hours: 21.6, overtime_hours: 4, doubletime_hours: 0.7, gross_pay: 604.64 },
      { employee_id: "B", regular_hours: 44, overtime_hours: 11, doubletime_hours: 0, gross_pay: 1815 },
    ]);
  });

  it("pays the same case under the default conventions (exact minutes, weekly overtime only)", () => {
    // A: 487 + 359 + 793 = 1639 min, all in week 1 and under 40 h: 27.3167 h -> 27.32; 1639 x 20 / 60 = 546.333 -> 546.33.
    // B: week 1 = 360 + 4 x 630 + 300 = 3180 min = 53 h -> 40 regular + 13 overtime; week 2 4 h regular.
    //   44 x 30 + 13 x 45 = 1320 + 585 = 1905.00.
    expect(verifier.solve(env, defaults)[OUTPUT]).toEqual([
      { employee_id: "A", regular_hours: 27.32, overtime_hours: 0, doubletime_hours: 0, gross_pay: 546.33 },
      { employee_id: "B", regular_hours: 44, overtime_hours: 13, doubletime_hours: 0, gross_pay: 1905 },
    ]);
  });

  it("rounds a punch to the nearest mark, a half-way tie up", () => {
    // 07:27 is 447 min: 3 past 444 -> 450; 07:26 is 446 -> 444; with 15 min: 07:37 (457) is 7 past 450 -> 450.
    expect([roundPunch(447, 6), roundPunch(446, 6), roundPunch(457, 15), roundPunch(458, 15)]).toEqual([
      450, 444, 450, 465,
    ]);
  });

  it("names the line of a malformed punch", () => {
    const bad = {
      ...env,
      "punches.csv": "employee_id,clock_in,clock_out\nA,2026-03-02 6:57,2026-03-02 15:04\n",
    };
    expect(() => verifier.solve(bad, artefact)).toThrow(/punches\.csv: line 2: "2026-03-02 6:57"/);
  });
});

describe("payroll-overtime gate on the committed data", () => {
  it("is a valid task without warnings", () => {
    const result = loadTask(paths, ID);
    expect(result.ok && result.warnings).toEqual([]);
  });

  it("gives a different answer under the default and under the perturbed conventions", () => {
    const a = JSON.stringify(solved(artefact));
    const d = JSON.stringify(solved(defaults));
    const p = JSON.stringify(solved(variants.perturbed!));
    expect(new Set([a, d, p]).size).toBe(3);
  });

  it("declares the compressed variant with the artefact's conventions in about a quarter of the bytes", () => {
    expect(variants.compressed).toEqual(artefact);
    const compressed = task.variants.find((v) => v.name === "compressed")!;
    expect(compressed.bytes.length * 3).toBeLessThan(task.artefact.bytes.length);
    expect(compressed.bytes.toString("utf8").split("\n")[0]).toBe(
      `<!-- kgate-canary: ${task.artefact.canary} -->`,
    );
  });

  it("exercises every private convention: changing any one of them changes the answer", () => {
    const rows = solved(artefact);
    const changes: Partial<typeof artefact>[] = [
      { roundingMinutes: 1 },
      { mealAfterHours: null },
      { mealAfterHours: 5.9 },
      { dailyOvertimeAfter: null },
      { dailyDoubleAfter: null },
      { weeklyOvertimeAfter: 44 },
      { nightPremium: 0 },
      { night: { from: 20 * 60 + 1, until: 4 * 60 } },
    ];
    for (const change of changes) {
      expect(solved({ ...artefact, ...change }), JSON.stringify(change)).not.toEqual(rows);
    }
  });
});

describeGeneratorAndOracle(library, { artefact: solved(artefact), perturbed: solved(variants.perturbed!) });
