import { describe, expect, it } from "vitest";
import { loadTask } from "../src/task/index.ts";
import verifier from "../verifiers/mortgage-escrow.ts";
import { describeGeneratorAndOracle, libraryTask } from "./support/library-task.ts";

const ID = "mortgage-escrow";
const OUTPUT = "output/escrow_analysis.csv";
const KEY = "loan_id";
const library = libraryTask(ID, OUTPUT, KEY);
const { paths, task, environmentOf } = library;
const { artefact, default: defaults, variants } = verifier.conventions;
const committed = environmentOf(task);
const solved = (c: typeof artefact) => verifier.solve(committed, c)[OUTPUT];

describe("mortgage-escrow reference solver", () => {
  const env = {
    "loans.csv":
      "loan_id,analysis_month,escrow_balance\nL1,2026-03,100.00\nL2,2026-01,900.00\nL3,2026-05,1332.00\n",
    "disbursements.csv": [
      "loan_id,paid_on,category,amount",
      "L1,2025-04-10,county_tax,1000.00",
      "L1,2025-10-10,county_tax,1000.00",
      "L1,2026-01-15,hazard_insurance,1200.00",
      "L2,2025-02-03,mortgage_insurance,60.00",
      "L2,2025-06-01,school_tax,600.00",
      "L2,2025-08-03,mortgage_insurance,60.00",
      "L3,2025-05-20,city_tax,1200.00",
    ].join("\n"),
  };
  const row = (loan_id: string, ...v: number[]) => ({
    loan_id,
    annual_disbursements: v[0],
    monthly_deposit: v[1],
    cushion: v[2],
    low_point: v[3],
    shortage: v[4],
    surplus_refund: v[5],
    new_monthly_payment: v[6],
  });

  it("analyses a hand-checked case under the artefact's conventions", () => {
    // L1 (year Mar..Feb): taxes 1000 x 1.04 = 1040.00 in Apr and Oct, hazard 1200 x 1.075 = 1290.00 in Jan.
    //   Annual 3370.00; deposit 3370 / 12 = 280.8333 -> up 280.84; cushion 3370 / 12 -> half up 280.83.
    //   Disburse first: Mar 100.00 -> 380.84; Apr 380.84 - 1040 = -659.16 (the low) -> -378.32; ...
    //   Oct 1025.88 - 1040 = -14.12; Jan 828.40 - 1290 = -461.60. Low -659.16.
    //   Shortage 280.83 + 659.16 = 939.99 > one deposit -> 24 installments: 39.16625 -> up 39.17.
    //   New payment 280.84 + 39.17 = 320.01.
    // L2 (Jan..Dec): school 600 x 1.04 = 624.00 in Jun, MI 60.00 in Feb and Aug. Annual 744.00, deposit 62.00,
    //   cushion excludes MI: 624 / 12 = 52.00. Balances after disbursements: 900, 902, 964, 1026, 1088,
    //   1150 - 624 = 526 (the low), 588, 590, ... Surplus 526 - 52 = 474.00 >= 50 -> refunded.
    // L3 (May..Apr): city 1200 x 1.04 = 1248.00 in May; deposit and cushion 104.00. Low 1332 - 1248 = 84.00,
    //   shortage 104 - 84 = 20.00 < 25.00 -> waived: 0.00, payment 104.00.
    expect(verifier.solve(env, artefact)[OUTPUT]).toEqual([
      row("L1", 3370, 280.84, 280.83, -659.16, 939.99, 0, 320.01),
      row("L2", 744, 62, 52, 526, 0, 474, 62),
      row("L3", 1248, 104, 104, 84, 0, 0, 104),
    ]);
  });

  it("analyses the same case under the default (textbook) conventions", () => {
    // L1: no trend, annual 3200.00, deposit 266.666 -> 266.67, cushion 2/12 x 3200 = 533.33. Deposit first:
    //   Mar 366.67; Apr 366.67 + 266.67 - 1000 = -366.66 (the low); ... Shortage 533.33 + 366.66 = 899.99
    //   over 12 months = 74.999 -> 75.00; payment 341.67.
    // L2: annual 720, deposit 60, cushion 120 (MI included); Jun 1140 + 60 - 600 = 600 is the low; refund 480.
    // L3: annual 1200, deposit 100, cushion 200; May 1332 + 100 - 1200 = 232; surplus 32 < 50: no refund.
    expect(verifier.solve(env, defaults)[OUTPUT]).toEqual([
      row("L1", 3200, 266.67, 533.33, -366.66, 899.99, 0, 341.67),
      row("L2", 720, 60, 120, 600, 0, 480, 60),
      row("L3", 1200, 100, 200, 232, 0, 0, 100),
    ]);
  });

  it("names the line of a malformed amount", () => {
    const bad = {
      ...env,
      "disbursements.csv": "loan_id,paid_on,category,amount\nL1,2025-04-10,county_tax,1.2.3\n",
    };
    expect(() => verifier.solve(bad, artefact)).toThrow(
      /disbursements\.csv: line 2: "1\.2\.3" is not an amount/,
    );
  });
});

describe("mortgage-escrow gate on the committed data", () => {
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
      { trend: {} },
      { depositRounding: "half-up" },
      { cushionMonths: 2 },
      { cushionExcludes: [] },
      { disburseBeforeDeposit: false },
      { shortageWaiverBelow: 0 },
      { shortageMonths: { small: 12, large: 12 } },
      { installmentRounding: "half-up" },
      { surplusRefundAtLeast: 25 },
    ];
    for (const change of changes)
      expect(solved({ ...artefact, ...change }), JSON.stringify(change)).not.toEqual(rows);
  });
});

describeGeneratorAndOracle(library, { artefact: solved(artefact), perturbed: solved(variants.perturbed!) });
