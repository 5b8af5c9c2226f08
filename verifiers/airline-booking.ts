// Verifier for airline-booking: every booking priced (fare, change fees, taxes) as a pure function of
// the environment and the carrier's fare and ticketing conventions, in integer cents.
import { defineVerifier, type EnvironmentFiles, environmentRows, environmentText } from "kgate/verify";

export interface FareConventions {
  /** Booking classes from the highest rung of the ladder to the lowest, each priced at this percent of the Y fare. */
  ladder: Record<string, number>;
  /**
   * Segments sharing a journey number: priced as one journey in the highest (or lowest) class booked on
   * it, at the through fare of the journey's origin and destination when one is filed; `separate`:
   * every segment in its own class on its own market.
   */
  married: "highest" | "lowest" | "separate";
  /** Change fee per passenger, by the booked class of the changed segment (whole currency units). */
  changeFees: Record<string, number>;
  /** `journey`: changed segments of one journey are one change (the highest fee); `segment`: a fee each. */
  changeFeePer: "journey" | "segment";
  /** Ticket tax: levied per passenger per journey or once on the booking's fare, rounded to `stepCents`. */
  taxRounding: { per: "passenger-journey" | "booking"; stepCents: number; mode: "up" | "half-up" };
  /** A segment that is not the first of its journey (a connection) pays no departure charge. */
  transitExempt: boolean;
}

const CLASSES = ["Y", "B", "M", "H", "K", "Q", "L", "V", "T", "N"] as const;
const table = (values: number[]) => Object.fromEntries(CLASSES.map((c, i) => [c, values[i]!]));

const artefact: FareConventions = {
  ladder: table([100, 90, 80, 70, 62, 55, 48, 42, 36, 30]),
  married: "highest",
  changeFees: table([0, 0, 0, 75, 75, 75, 150, 150, 150, 250]),
  changeFeePer: "journey",
  taxRounding: { per: "passenger-journey", stepCents: 10, mode: "up" },
  transitExempt: true,
};

/**
 * What a competent agent assumes without the rules: only the Y fare is filed, so every class costs it;
 * every segment priced alone; no change fee schedule; the tax on the booking's fare, to the cent;
 * every departure charged.
 */
const defaults: FareConventions = {
  ladder: table([100, 100, 100, 100, 100, 100, 100, 100, 100, 100]),
  married: "separate",
  changeFees: table([0, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
  changeFeePer: "segment",
  taxRounding: { per: "booking", stepCents: 1, mode: "half-up" },
  transitExempt: false,
};

/** Plausible but wrong: journeys in their lowest class, a Saver fee of 125, the tax up to whole units. */
const perturbed: FareConventions = {
  ...artefact,
  married: "lowest",
  changeFees: table([0, 0, 0, 75, 75, 75, 125, 125, 125, 250]),
  taxRounding: { per: "passenger-journey", stepCents: 100, mode: "up" },
};

/** A decimal amount with at most 2 decimals as integer cents ("21.40" -> 2140). */
export function cents(text: string, where: string): number {
  const m = /^(\d+)(?:\.(\d{1,2}))?$/.exec(text.trim());
  if (!m) throw new Error(`${where}: "${text}" is not an amount with at most 2 decimals`);
  return Number(m[1]) * 100 + Number((m[2] ?? "").padEnd(2, "0"));
}

/** n / d rounded to a multiple of 1 (integers, n >= 0): `up` or half up. */
function divide(n: number, d: number, mode: "up" | "half-up"): number {
  return mode === "up" ? Math.floor((n + d - 1) / d) : Math.floor((2 * n + d) / (2 * d));
}

/** The fare of `cls` on a market whose Y fare is `yCents`: its ladder share, half up to a whole unit. */
export function classFare(c: FareConventions, yCents: number, cls: string): number {
  const share = c.ladder[cls];
  if (share === undefined) throw new Error(`unknown fare class "${cls}"`);
  return divide(yCents * share, 100 * 100, "half-up") * 100;
}

interface Segment {
  segment: number;
  journey: number;
  origin: string;
  destination: string;
  cls: string;
}

function rank(c: FareConventions, cls: string): number {
  return Object.keys(c.ladder).indexOf(cls);
}

/** One passenger's fare of one journey, in cents. */
function journeyFare(c: FareConventions, fares: Map<string, number>, legs: Segment[]): number {
  const y = (o: string, d: string) => {
    const found = fares.get(`${o}-${d}`);
    if (found === undefined) throw new Error(`fares.csv: no Y fare for ${o}-${d}`);
    return found;
  };
  if (c.married === "separate" || legs.length === 1) {
    return legs.reduce((sum, s) => sum + classFare(c, y(s.origin, s.destination), s.cls), 0);
  }
  const ranked = [...legs].sort((a, b) => rank(c, a.cls) - rank(c, b.cls));
  const control = (c.married === "highest" ? ranked[0] : ranked[ranked.length - 1])!.cls;
  const through = fares.get(`${legs[0]!.origin}-${legs[legs.length - 1]!.destination}`);
  if (through !== undefined) return classFare(c, through, control);
  return legs.reduce((sum, s) => sum + classFare(c, y(s.origin, s.destination), control), 0);
}

interface Network {
  /** Y fares in cents by market `origin-destination`. */
  fares: Map<string, number>;
  /** Departure charges in cents by airport. */
  charges: Map<string, number>;
  /** The ticket tax in thousandths (7.5% -> 75), so that every amount stays an integer. */
  perMille: number;
  segments: Map<string, Segment[]>;
  /** `booking#segment` of every changed segment. */
  changed: Set<string>;
}

function readNetwork(env: EnvironmentFiles): Network {
  const amounts = (file: string, key: string, column: string) =>
    new Map(environmentRows(env, file).map((r, i) => [r[key]!, cents(r[column]!, `${file}: line ${i + 2}`)]));
  const fares = new Map(
    environmentRows(env, "fares.csv").map((r, i) => [
      `${r.origin}-${r.destination}`,
      cents(r.y_fare!, `fares.csv: line ${i + 2}`),
    ]),
  );
  const tariff = Object.fromEntries(
    environmentText(env, "tariff.txt")
      .trim()
      .split("\n")
      .map((line) => line.split("=").map((s) => s.trim())),
  );
  const perMille = Math.round(Number(tariff.ticket_tax_percent) * 10);
  if (!Number.isFinite(perMille)) throw new Error("tariff.txt: ticket_tax_percent is not a number");
  const segments = new Map<string, Segment[]>();
  for (const r of environmentRows(env, "segments.csv")) {
    const list = segments.get(r.booking_id!) ?? [];
    list.push({
      segment: Number(r.segment),
      journey: Number(r.journey),
      origin: r.origin!,
      destination: r.destination!,
      cls: r.fare_class!,
    });
    segments.set(r.booking_id!, list);
  }
  const changed = new Set(environmentRows(env, "changes.csv").map((r) => `${r.booking_id}#${r.segment}`));
  return {
    fares,
    charges: amounts("airports.csv", "airport", "departure_charge"),
    perMille,
    segments,
    changed,
  };
}

/** One booking for all its passengers, in cents: fare, change fees, taxes. */
function priceBooking(c: FareConventions, net: Network, id: string, pax: number) {
  const journeys = new Map<number, Segment[]>();
  for (const s of [...(net.segments.get(id) ?? [])].sort((x, y) => x.segment - y.segment)) {
    journeys.set(s.journey, [...(journeys.get(s.journey) ?? []), s]);
  }
  const { per, stepCents, mode } = c.taxRounding;
  const tax = (base: number) => divide(base * net.perMille, 1000 * stepCents, mode) * stepCents;
  let fare = 0;
  let fees = 0;
  let taxes = 0;
  for (const legs of journeys.values()) {
    const perPassenger = journeyFare(c, net.fares, legs);
    fare += perPassenger * pax;
    if (per === "passenger-journey") taxes += tax(perPassenger) * pax;
    const changedFees = legs
      .filter((s) => net.changed.has(`${id}#${s.segment}`))
      .map((s) => c.changeFees[s.cls]! * 100);
    if (changedFees.length > 0) {
      const journeyFees =
        c.changeFeePer === "journey" ? Math.max(...changedFees) : changedFees.reduce((a, v) => a + v, 0);
      fees += journeyFees * pax;
    }
    legs.forEach((s, i) => {
      if (c.transitExempt && i > 0) return;
      const charge = net.charges.get(s.origin);
      if (charge === undefined) throw new Error(`airports.csv: no departure charge for ${s.origin}`);
      taxes += charge * pax;
    });
  }
  if (per === "booking") taxes += tax(fare);
  return { fare, fees, taxes };
}

function solve(env: EnvironmentFiles, c: FareConventions) {
  const net = readNetwork(env);
  const rows = environmentRows(env, "bookings.csv").map((b) => {
    const { fare, fees, taxes } = priceBooking(c, net, b.booking_id!, Number(b.passengers));
    return {
      booking_id: b.booking_id!,
      fare: fare / 100,
      change_fees: fees / 100,
      taxes: taxes / 100,
      total: (fare + fees + taxes) / 100,
    };
  });
  return { "output/itinerary_prices.csv": rows };
}

export default defineVerifier<FareConventions>({
  conventions: { artefact, default: defaults, variants: { perturbed, compressed: artefact } },
  solve,
});
