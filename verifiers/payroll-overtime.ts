// Verifier for payroll-overtime: gross pay from time punches as a pure function of the environment and the conventions.
import {
  defineVerifier,
  type EnvironmentFiles,
  environmentRows,
  environmentText,
  roundToStep,
} from "kgate/verify";

export interface PayrollConventions {
  /** Punches are rounded to the nearest multiple of this many minutes (1 = exact); a half-way tie rounds up. */
  roundingMinutes: number;
  /** A shift whose rounded length is more than this many hours loses an unpaid meal; null = never. */
  mealAfterHours: number | null;
  mealMinutes: number;
  /** Paid hours of a shift beyond this are overtime (1.5x); null = no daily overtime. */
  dailyOvertimeAfter: number | null;
  /** Paid hours of a shift beyond this are double time (2.0x); null = no double time. */
  dailyDoubleAfter: number | null;
  /** Straight-time hours of a workweek beyond this are overtime (1.5x), taken chronologically. */
  weeklyOvertimeAfter: number;
  /** Dollars per paid hour for a shift starting in the night window; part of the regular rate. */
  nightPremium: number;
  /** Night window as minutes after midnight: a rounded start >= from or < until is a night shift. */
  night: { from: number; until: number };
}

const artefact: PayrollConventions = {
  roundingMinutes: 6,
  mealAfterHours: 6,
  mealMinutes: 30,
  dailyOvertimeAfter: 8,
  dailyDoubleAfter: 12,
  weeklyOvertimeAfter: 40,
  nightPremium: 1.6,
  night: { from: 20 * 60, until: 4 * 60 },
};

/** The federal baseline a competent payroll clerk assumes without the policy: exact minutes, weekly overtime only. */
const defaults: PayrollConventions = {
  roundingMinutes: 1,
  mealAfterHours: null,
  mealMinutes: 30,
  dailyOvertimeAfter: null,
  dailyDoubleAfter: null,
  weeklyOvertimeAfter: 40,
  nightPremium: 0,
  night: { from: 20 * 60, until: 4 * 60 },
};

/** Plausible but wrong: quarter-hour rounding, a meal after 5 hours, a $1.25 night premium. */
const perturbed: PayrollConventions = {
  ...artefact,
  roundingMinutes: 15,
  mealAfterHours: 5,
  nightPremium: 1.25,
};

/** "YYYY-MM-DD HH:MM" (or a bare date) as whole minutes since 1970-01-01 00:00. */
function minutes(text: string, where: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?: (\d{2}):(\d{2}))?$/.exec(text.trim());
  if (!m) throw new Error(`${where}: "${text}" is not YYYY-MM-DD HH:MM`);
  const [, y, mo, d, h = "0", mi = "0"] = m;
  return Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi)) / 60_000;
}

/** Nearest multiple of `step`, a half-way tie rounding up (to the later time). */
export function roundPunch(t: number, step: number): number {
  return roundToStep(t, step, "half-up");
}

/** n / d rounded half up, for n >= 0. */
function halfUp(n: number, d: number): number {
  return Math.floor((2 * n + d) / (2 * d));
}

interface Shift {
  start: number;
  paid: number;
  rateCents: number;
}

/** Minutes of one shift split into straight, overtime and double time by the daily thresholds. */
function dailySplit(c: PayrollConventions, paid: number): [number, number, number] {
  const ot = c.dailyOvertimeAfter === null ? paid : Math.min(paid, c.dailyOvertimeAfter * 60);
  const dt = c.dailyDoubleAfter === null ? paid : Math.min(paid, c.dailyDoubleAfter * 60);
  return [ot, Math.max(0, dt - ot), Math.max(0, paid - Math.max(ot, dt))];
}

function solve(env: EnvironmentFiles, c: PayrollConventions) {
  const period = Object.fromEntries(
    environmentText(env, "pay_period.txt")
      .trim()
      .split("\n")
      .map((line) => line.split("=").map((s) => s.trim())),
  );
  const periodStart = minutes(period.pay_period_start ?? "", "pay_period.txt: pay_period_start");
  const premiumCents = Math.round(c.nightPremium * 100);
  const shifts = new Map<string, Shift[]>();
  const rates = new Map<string, number>();
  for (const e of environmentRows(env, "employees.csv"))
    rates.set(e.employee_id!, Math.round(Number(e.base_rate) * 100));

  environmentRows(env, "punches.csv").forEach((p, i) => {
    const where = `punches.csv: line ${i + 2}`;
    const start = roundPunch(minutes(p.clock_in!, where), c.roundingMinutes);
    const end = roundPunch(minutes(p.clock_out!, where), c.roundingMinutes);
    let paid = end - start;
    if (c.mealAfterHours !== null && paid > c.mealAfterHours * 60) paid -= c.mealMinutes;
    const clock = ((start % 1440) + 1440) % 1440;
    const night = clock >= c.night.from || clock < c.night.until;
    const base = rates.get(p.employee_id!);
    if (base === undefined) throw new Error(`${where}: unknown employee ${p.employee_id}`);
    const shift = { start, paid, rateCents: base + (night ? premiumCents : 0) };
    shifts.set(p.employee_id!, [...(shifts.get(p.employee_id!) ?? []), shift]);
  });

  const rows = [...rates.keys()].map((id) => {
    let regular = 0;
    let overtime = 0;
    let double = 0;
    let pay = 0; // cents x 120: minutes x rate cents x (2 x multiplier)
    const straightByWeek = new Map<number, number>();
    for (const s of [...(shifts.get(id) ?? [])].sort((a, b) => a.start - b.start)) {
      const week = Math.floor((s.start - periodStart) / (7 * 1440));
      const [straight, ot, dt] = dailySplit(c, s.paid);
      const before = straightByWeek.get(week) ?? 0;
      const room = Math.max(0, c.weeklyOvertimeAfter * 60 - before);
      const keep = Math.min(straight, room);
      straightByWeek.set(week, before + keep);
      const weeklyOt = straight - keep;
      regular += keep;
      overtime += ot + weeklyOt;
      double += dt;
      pay += s.rateCents * (2 * keep + 3 * (ot + weeklyOt) + 4 * dt);
    }
    const hours = (m: number) => halfUp(m * 100, 60) / 100;
    return {
      employee_id: id,
      regular_hours: hours(regular),
      overtime_hours: hours(overtime),
      doubletime_hours: hours(double),
      gross_pay: halfUp(pay, 120) / 100,
    };
  });
  return { "output/payroll.csv": rows };
}

export default defineVerifier<PayrollConventions>({
  conventions: { artefact, default: defaults, variants: { perturbed, compressed: artefact } },
  solve,
});
