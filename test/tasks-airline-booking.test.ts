// airline-booking: the reference solver on a hand-checked network under the artefact's, the default
// and the perturbed conventions; the committed data and its gate; the generator and the Python oracle.
import { describe, expect, it } from "vitest";
import { loadTask } from "../src/task/index.ts";
import verifier, { classFare } from "../verifiers/airline-booking.ts";
import { describeGeneratorAndOracle, libraryTask } from "./support/library-task.ts";

const ID = "airline-booking";
const OUTPUT = "output/itinerary_prices.csv";
const library = libraryTask(ID, OUTPUT, "booking_id");
const { paths, task, environmentOf } = library;
const { artefact, default: defaults, variants } = verifier.conventions;
const committed = environmentOf(task);
const solved = (c: typeof artefact) => verifier.solve(committed, c)[OUTPUT];

// X1: two passengers, AAA-HUB in K then HUB-BBB in T (one journey), a through fare AAA-BBB filed,
// segment 2 changed. X2: one passenger, AAA-HUB in Q then HUB-CCC in L, no through fare AAA-CCC,
// both segments changed.
const env = {
  "fares.csv": "origin,destination,y_fare\nAAA,HUB,200.00\nHUB,BBB,300.00\nAAA,BBB,400.00\nHUB,CCC,100.00\n",
  "airports.csv": "airport,city,departure_charge\nAAA,A,10.00\nHUB,H,20.00\nBBB,B,5.50\nCCC,C,3.00\n",
  "bookings.csv": "booking_id,passengers,booked_on\nX1,2,2026-01-01\nX2,1,2026-01-02\n",
  "segments.csv": [
    "booking_id,segment,journey,flight,origin,destination,departure,fare_class",
    "X1,1,1,F1,AAA,HUB,2026-02-01 08:00,K",
    "X1,2,1,F2,HUB,BBB,2026-02-01 10:00,T",
    "X2,1,1,F3,AAA,HUB,2026-02-03 08:00,Q",
    "X2,2,1,F4,HUB,CCC,2026-02-03 10:00,L",
  ].join("\n"),
  "changes.csv":
    "booking_id,segment,new_departure\nX1,2,2026-02-02 10:00\nX2,1,2026-02-04 08:00\nX2,2,2026-02-04 10:00\n",
  "tariff.txt": "currency=EUR\nticket_tax_percent=7.5\n",
};

describe("airline-booking reference solver", () => {
  it("prices a hand-checked case under the artefact's conventions", () => {
    // X1: controlling class = the highest of K (62%) and T (36%): K. Through fare 400 x 0.62 = 248 per
    //   passenger, x 2 = 496.00. Change of segment 2 (T, Saver 150) x 2 = 300.00. Ticket tax 248 x 7.5%
    //   = 18.60 (already on a 0.10 step) x 2 = 37.20; departure charge AAA 10.00 x 2 (HUB is transit,
    //   exempt) = 20.00: taxes 57.20. Total 496 + 300 + 57.20 = 853.20.
    // X2: highest of Q (55%) and L (48%): Q. No through fare: 200 x 0.55 + 100 x 0.55 = 110 + 55 = 165.
    //   Both segments changed, one journey: one fee, the higher of 75 (Q) and 150 (L) = 150.00.
    //   Tax 165 x 7.5% = 12.375 -> up to 12.40; departure AAA 10.00: taxes 22.40. Total 337.40.
    expect(verifier.solve(env, artefact)[OUTPUT]).toEqual([
      { booking_id: "X1", fare: 496, change_fees: 300, taxes: 57.2, total: 853.2 },
      { booking_id: "X2", fare: 165, change_fees: 150, taxes: 22.4, total: 337.4 },
    ]);
  });

  it("prices the same case under the default conventions (Y fare everywhere, segments alone)", () => {
    // X1: (200 + 300) x 2 = 1000.00; no fees; tax 7.5% of the booking's 1000 = 75.00, departures
    //   (AAA 10 + HUB 20) x 2 = 60.00: taxes 135.00, total 1135.00.
    // X2: 200 + 100 = 300.00; tax 22.50 + departures 30.00 = 52.50; total 352.50.
    expect(verifier.solve(env, defaults)[OUTPUT]).toEqual([
      { booking_id: "X1", fare: 1000, change_fees: 0, taxes: 135, total: 1135 },
      { booking_id: "X2", fare: 300, change_fees: 0, taxes: 52.5, total: 352.5 },
    ]);
  });

  it("prices the same case under the perturbed conventions (lowest class, Saver 125, tax to 1.00)", () => {
    // X1: lowest class T (36%): 400 x 0.36 = 144 x 2 = 288.00; fee 125 x 2 = 250.00; tax 144 x 7.5% =
    //   10.80 -> up to 11.00, x 2 = 22.00, + departures 20.00 = 42.00; total 580.00.
    // X2: lowest class L (48%): 96 + 48 = 144.00; fee max(75, 125) = 125.00; tax 11.00 + 10.00 = 21.00;
    //   total 290.00.
    expect(verifier.solve(env, variants.perturbed!)[OUTPUT]).toEqual([
      { booking_id: "X1", fare: 288, change_fees: 250, taxes: 42, total: 580 },
      { booking_id: "X2", fare: 144, change_fees: 125, taxes: 21, total: 290 },
    ]);
  });

  it("rounds a class fare half up to a whole unit", () => {
    // K is 62%: 125 x 0.62 = 77.50 -> 78; 201 x 0.62 = 124.62 -> 125; 250 x 0.62 = 155 exactly.
    expect([12_500, 20_100, 25_000].map((y) => classFare(artefact, y, "K"))).toEqual([7_800, 12_500, 15_500]);
  });

  it("names the file and line of a malformed amount", () => {
    const bad = { ...env, "fares.csv": "origin,destination,y_fare\nAAA,HUB,2OO.00\n" };
    expect(() => verifier.solve(bad, artefact)).toThrow(/fares\.csv: line 2: "2OO\.00"/);
  });
});

describe("airline-booking gate on the committed data", () => {
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

  it("declares the compressed variant with the artefact's conventions in under a third of the bytes", () => {
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
      { ladder: { ...artefact.ladder, K: 60 } },
      { married: "separate" },
      { married: "lowest" },
      { changeFees: { ...artefact.changeFees, N: 200 } },
      { changeFeePer: "segment" },
      { taxRounding: { ...artefact.taxRounding, stepCents: 1 } },
      { taxRounding: { ...artefact.taxRounding, per: "booking" } },
      { transitExempt: false },
    ];
    for (const change of changes) {
      expect(solved({ ...artefact, ...change }), JSON.stringify(change)).not.toEqual(rows);
    }
  });
});

describeGeneratorAndOracle(library, { artefact: solved(artefact), perturbed: solved(variants.perturbed!) });
