// Verifier for mortgage-escrow: the annual escrow analysis as a pure function of the environment and the conventions.
import { defineVerifier, type EnvironmentFiles, environmentRows } from "kgate/verify";

type Rounding = "up" | "half-up";

export interface EscrowConventions {
  /** Trend applied to last year's bill per category (0.04 = +4%); a category not listed is unchanged. */
  trend: Record<string, number>;
  /** Rounding of annual / 12 to the cent. */
  depositRounding: Rounding;
  /** Cushion = (annual disbursements minus the excluded categories) x cushionMonths / 12, half up. */
  cushionMonths: number;
  cushionExcludes: string[];
  /** true: a month's disbursements leave before its deposit is credited; false: deposit first. */
  disburseBeforeDeposit: boolean;
  /** A shortage below this many dollars is waived (0 waives nothing). */
  shortageWaiverBelow: number;
  /** Installments of a shortage up to one monthly deposit (small) and above it (large). */
  shortageMonths: { small: number; large: number };
  installmentRounding: Rounding;
  /** A surplus of at least this many dollars is refunded; a smaller one stays in the account. */
  surplusRefundAtLeast: number;
}

const TAXES = ["county_tax", "city_tax", "school_tax"];

const artefact: EscrowConventions = {
  trend: {
    ...Object.fromEntries(TAXES.map((t) => [t, 0.04])),
    hazard_insurance: 0.075,
    flood_insurance: 0,
    mortgage_insurance: 0,
  },
  depositRounding: "up",
  cushionMonths: 1,
  cushionExcludes: ["mortgage_insurance"],
  disburseBeforeDeposit: true,
  shortageWaiverBelow: 25,
  shortageMonths: { small: 12, large: 24 },
  installmentRounding: "up",
  surplusRefundAtLeast: 50,
};

/** The textbook RESPA analysis a competent servicer assumes without the house rules. */
const defaults: EscrowConventions = {
  trend: {},
  depositRounding: "half-up",
  cushionMonths: 2,
  cushionExcludes: [],
  disburseBeforeDeposit: false,
  shortageWaiverBelow: 0,
  shortageMonths: { small: 12, large: 12 },
  installmentRounding: "half-up",
  surplusRefundAtLeast: 50,
};

/** Plausible but wrong: a two-month cushion, a 3.0% tax trend, large shortages over 18 months. */
const perturbed: EscrowConventions = {
  ...artefact,
  trend: { ...artefact.trend, ...Object.fromEntries(TAXES.map((t) => [t, 0.03])) },
  cushionMonths: 2,
  shortageMonths: { small: 12, large: 18 },
};

/** Dollars with at most two decimals (e.g. "1620.81") as integer cents. */
function toCents(text: string, where: string): number {
  if (!/^-?\d+(\.\d{1,2})?$/.test(text)) throw new Error(`${where}: "${text}" is not an amount`);
  const [whole, frac = ""] = text.replace("-", "").split(".");
  const value = Number(whole) * 100 + Number(frac.padEnd(2, "0"));
  return text.startsWith("-") ? -value : value;
}

/** n / d rounded to an integer (d > 0): up = ceiling, half-up = nearest with halves away from zero. */
function divide(n: number, d: number, rounding: Rounding): number {
  if (rounding === "up") return n >= 0 ? Math.floor((n + d - 1) / d) : -Math.floor(-n / d);
  const q = Math.floor((2 * Math.abs(n) + d) / (2 * d));
  return n < 0 ? -q : q;
}

/** Calendar month number (year * 12 + month - 1) of "YYYY-MM" or "YYYY-MM-DD". */
function monthIndex(text: string): number {
  const [y, m] = text.split("-").map(Number);
  return y! * 12 + m! - 1;
}

function analyse(c: EscrowConventions, startCents: number, startMonth: number, bills: Bill[]) {
  const byMonth = new Array<number>(12).fill(0);
  let annual = 0;
  let cushionBase = 0;
  for (const bill of bills) {
    const bp = Math.round((c.trend[bill.category] ?? 0) * 10_000);
    const projected = divide(bill.cents * (10_000 + bp), 10_000, "half-up");
    const slot = (((bill.month - startMonth) % 12) + 12) % 12;
    byMonth[slot]! += projected;
    annual += projected;
    if (!c.cushionExcludes.includes(bill.category)) cushionBase += projected;
  }
  const deposit = divide(annual, 12, c.depositRounding);
  const cushion = divide(cushionBase * c.cushionMonths, 12, "half-up");
  let balance = startCents;
  let low = Number.POSITIVE_INFINITY;
  for (const out of byMonth) {
    if (c.disburseBeforeDeposit) {
      balance -= out;
      low = Math.min(low, balance);
      balance += deposit;
    } else {
      balance += deposit - out;
      low = Math.min(low, balance);
    }
  }
  let shortage = Math.max(0, cushion - low);
  if (shortage < c.shortageWaiverBelow * 100) shortage = 0;
  const months = shortage <= deposit ? c.shortageMonths.small : c.shortageMonths.large;
  const installment = shortage === 0 ? 0 : divide(shortage, months, c.installmentRounding);
  const surplus = Math.max(0, low - cushion);
  const refund = surplus >= c.surplusRefundAtLeast * 100 ? surplus : 0;
  return { annual, deposit, cushion, low, shortage, refund, payment: deposit + installment };
}

interface Bill {
  month: number;
  category: string;
  cents: number;
}

function solve(env: EnvironmentFiles, c: EscrowConventions) {
  const bills = new Map<string, Bill[]>();
  environmentRows(env, "disbursements.csv").forEach((r, i) => {
    const bill = {
      month: monthIndex(r.paid_on!),
      category: r.category!,
      cents: toCents(r.amount!, `disbursements.csv: line ${i + 2}`),
    };
    bills.set(r.loan_id!, [...(bills.get(r.loan_id!) ?? []), bill]);
  });
  const rows = environmentRows(env, "loans.csv").map((loan, i) => {
    const start = toCents(loan.escrow_balance!, `loans.csv: line ${i + 2}`);
    const a = analyse(c, start, monthIndex(loan.analysis_month!), bills.get(loan.loan_id!) ?? []);
    return {
      loan_id: loan.loan_id!,
      annual_disbursements: a.annual / 100,
      monthly_deposit: a.deposit / 100,
      cushion: a.cushion / 100,
      low_point: a.low / 100,
      shortage: a.shortage / 100,
      surplus_refund: a.refund / 100,
      new_monthly_payment: a.payment / 100,
    };
  });
  return { "output/escrow_analysis.csv": rows };
}

export default defineVerifier<EscrowConventions>({
  conventions: { artefact, default: defaults, variants: { perturbed, compressed: artefact } },
  solve,
});
