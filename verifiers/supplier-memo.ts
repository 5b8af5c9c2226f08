// Verifier for supplier-memo: the recommended supplier and the runner-up with their effective landed
// costs, as a pure function of the quotes and the sourcing conventions; the memo (free text) is graded
// by a code criterion (its first line names the recommended supplier) and two judge criteria (the
// recommendation and the runner-up with their costs), asked of the `judge` configuration.
import {
  defineVerifier,
  type EnvironmentFiles,
  environmentRows,
  type Rubric,
  roundHalfAway,
} from "kgate/verify";

export interface SourcingConventions {
  /** Import duty on the CIF value (unit price + freight per unit) of a supplier outside the US. */
  dutyRate: number;
  /** Inventory carrying cost: each day of lead time beyond `graceDays` adds `ratePerDay` x the unit price; null: none. */
  carrying: { graceDays: number; ratePerDay: number } | null;
  /** A supplier whose defect rate (percent) is above this is excluded; null: none is. */
  defectLimitPct: number | null;
}

const artefact: SourcingConventions = {
  dutyRate: 0.045,
  carrying: { graceDays: 21, ratePerDay: 0.0015 },
  defectLimitPct: 2.0,
};

/** What a buyer assumes without the desk's standard: price plus freight, every quote qualified. */
const defaults: SourcingConventions = { dutyRate: 0, carrying: null, defectLimitPct: null };

/** Plausible but wrong: duty 6.0%, carrying from the 28th day. */
const perturbed: SourcingConventions = {
  ...artefact,
  dutyRate: 0.06,
  carrying: { graceDays: 28, ratePerDay: 0.0015 },
};

export interface Costed {
  supplier: string;
  /** Effective landed cost per unit, USD, half away from zero to the cent. */
  cost: number;
}

export interface Recommendation {
  winner: Costed;
  runnerUp: Costed;
  /** Suppliers excluded for their defect rate, in the order of quotes.csv. */
  excluded: string[];
}

/** The effective landed cost per unit of one quote. */
export function landedCost(
  c: SourcingConventions,
  q: { country: string; price: number; freight: number; units: number; leadDays: number },
): number {
  const cif = q.price + q.freight / q.units;
  const duty = q.country === "US" ? 0 : c.dutyRate * cif;
  const late = c.carrying ? Math.max(0, q.leadDays - c.carrying.graceDays) : 0;
  const carrying = c.carrying ? late * c.carrying.ratePerDay * q.price : 0;
  return roundHalfAway(cif + duty + carrying, 2);
}

function solve(env: EnvironmentFiles, c: SourcingConventions): Record<string, Recommendation> {
  const quotes = environmentRows(env, "quotes.csv").map((r) => ({
    supplier: r.supplier!,
    country: r.country!,
    price: Number(r.unit_price),
    freight: Number(r.freight_per_shipment),
    units: Number(r.units_per_shipment),
    leadDays: Number(r.lead_time_days),
    defectPct: Number(r.defect_rate_pct),
  }));
  const excluded = quotes.filter((q) => c.defectLimitPct !== null && q.defectPct > c.defectLimitPct);
  const ranked = quotes
    .filter((q) => !excluded.includes(q))
    .map((q) => ({ supplier: q.supplier, cost: landedCost(c, q) }))
    .sort((a, b) => a.cost - b.cost || a.supplier.localeCompare(b.supplier));
  if (ranked.length < 2) throw new Error("quotes.csv: fewer than two qualified suppliers");
  return {
    "output/recommendation.md": {
      winner: ranked[0]!,
      runnerUp: ranked[1]!,
      excluded: excluded.map((q) => q.supplier),
    },
  };
}

const usd = (x: number) => x.toFixed(2);

/** The memo's first non-empty line. */
const firstLine = (text: string) =>
  text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .find((l) => l !== "") ?? "";

const memo: Rubric<string, Recommendation> = {
  criteria: [
    {
      name: "first line names the recommended supplier",
      check: (text, e) => {
        const want = `Recommended supplier: ${e.winner.supplier}`;
        const got = firstLine(text);
        return {
          passed: got === want,
          detail: got === want ? undefined : `first line is "${got.slice(0, 120)}"`,
        };
      },
    },
    {
      kind: "judge",
      name: "recommends the cheapest qualified supplier",
      judge: "judge",
      criterion: (e) =>
        `The memo recommends ${e.winner.supplier} at an effective landed cost of ${usd(e.winner.cost)} USD per unit.`,
    },
    {
      kind: "judge",
      name: "names the runner-up",
      judge: "judge",
      criterion: (e) =>
        `The memo names ${e.runnerUp.supplier} as the runner-up, at an effective landed cost of ${usd(e.runnerUp.cost)} USD per unit.`,
    },
  ],
  render: (e) =>
    [
      `Recommended supplier: ${e.winner.supplier}`,
      "",
      `We recommend ${e.winner.supplier}: at ${usd(e.winner.cost)} USD per unit it has the lowest effective landed cost of the qualified suppliers.`,
      `The runner-up is ${e.runnerUp.supplier}, at ${usd(e.runnerUp.cost)} USD per unit.`,
      e.excluded.length > 0
        ? `Excluded for their defect rate: ${e.excluded.join(", ")}.`
        : "No supplier was excluded.",
      "",
    ].join("\n"),
};

export default defineVerifier<SourcingConventions>({
  conventions: { artefact, default: defaults, variants: { perturbed, compressed: artefact } },
  solve,
  rubric: { "output/recommendation.md": memo },
});
