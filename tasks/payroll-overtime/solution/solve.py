#!/usr/bin/env python3
# Oracle of payroll-overtime, independent of the TypeScript reference: reads the pay rules from the
# specification itself (full or short form), then pays every shift with datetime arithmetic and exact
# fractions.
import csv
import os
import re
import sys
from datetime import datetime, timedelta
from fractions import Fraction

SPEC = "docs/hr/hourly-pay-rules.md"


def fail(message: str) -> None:
    sys.exit(f"oracle: {message}")


def find(patterns: list, text: str) -> re.Match:
    for pattern in patterns:
        m = re.search(pattern, text)
        if m:
            return m
    fail(f"the specification has no rule matching any of /{'/, /'.join(patterns)}/")


def read_spec() -> dict:
    """The pay rules as the document states them, in its full (sections) or short (one-line) form."""
    if not os.path.exists(SPEC):
        fail(f"{SPEC} is not present (the oracle runs with the specification)")
    flat = re.sub(r"\s+", " ", open(SPEC, encoding="utf-8").read().replace("**", "")).lower()
    hours = r"(\d+(?:\.\d+)?)"
    meal = find([r"more than " + hours + r" hours has (\d+) minutes deducted",
                 r"length > " + hours + r" ?h: (\d+) min unpaid meal"], flat)
    night = find([r"rounded clock-in is at (\d\d):(\d\d) or later, or before (\d\d):(\d\d)",
                  r"clock-in >= (\d\d):(\d\d) or < (\d\d):(\d\d)"], flat)
    return {
        "step": int(find([r"nearest (\d+)-minute mark", r"nearest (\d+) min"], flat).group(1)),
        "meal_after": Fraction(meal.group(1)) * 60,
        "meal": int(meal.group(2)),
        "ot_after": Fraction(find([r"\| up to " + hours + r" \| straight time \| 1\.0 \|",
                                   r"paid h to " + hours + " straight"], flat).group(1)) * 60,
        "dt_after": Fraction(find([r"\| over " + hours + r" \| double time \| 2\.0 \|",
                                   r">" + hours + r" dt 2x"], flat).group(1)) * 60,
        "week_after": Fraction(find([r"straight-time hours beyond " + hours + " in a workweek",
                                     r"straight h beyond " + hours], flat).group(1)) * 60,
        "night_from": timedelta(hours=int(night.group(1)), minutes=int(night.group(2))),
        "night_until": timedelta(hours=int(night.group(3)), minutes=int(night.group(4))),
        "premium": Fraction(find([r"premium of \$(\d+\.\d\d) per hour", r"\+\$(\d+\.\d\d)/paid h"],
                                 flat).group(1)),
    }


def round_punch(moment: datetime, step: int) -> datetime:
    midnight = moment.replace(hour=0, minute=0)
    minute = moment.hour * 60 + moment.minute
    below = minute - minute % step
    nearest = below + step if (minute - below) * 2 >= step else below
    return midnight + timedelta(minutes=nearest)


def two_decimals(value: Fraction) -> str:
    cents = (value * 100 * 2 + 1) // 2  # half up; every value here is >= 0
    return f"{cents // 100}.{cents % 100:02d}"


def main() -> None:
    spec = read_spec()
    period = dict(line.split("=", 1) for line in open("pay_period.txt").read().splitlines() if "=" in line)
    first_day = datetime.strptime(period["pay_period_start"].strip(), "%Y-%m-%d")
    with open("employees.csv", newline="") as f:
        employees = [(r["employee_id"], Fraction(r["base_rate"])) for r in csv.DictReader(f)]
    shifts = {}
    with open("punches.csv", newline="") as f:
        for r in csv.DictReader(f):
            start = round_punch(datetime.strptime(r["clock_in"], "%Y-%m-%d %H:%M"), spec["step"])
            end = round_punch(datetime.strptime(r["clock_out"], "%Y-%m-%d %H:%M"), spec["step"])
            length = Fraction(int((end - start).total_seconds()) // 60)
            paid = length - spec["meal"] if length > spec["meal_after"] else length
            clock = start - start.replace(hour=0, minute=0)
            is_night = clock >= spec["night_from"] or clock < spec["night_until"]
            shifts.setdefault(r["employee_id"], []).append((start, paid, is_night))

    os.makedirs("output", exist_ok=True)
    with open("output/payroll.csv", "w", newline="") as f:
        out = csv.writer(f, lineterminator="\n")
        out.writerow(["employee_id", "regular_hours", "overtime_hours", "doubletime_hours", "gross_pay"])
        for emp, base in employees:
            regular = overtime = double = gross = Fraction(0)
            week_straight = {}
            for start, paid, is_night in sorted(shifts.get(emp, [])):
                rate = base + (spec["premium"] if is_night else 0)
                straight = min(paid, spec["ot_after"])
                daily_ot = min(paid, spec["dt_after"]) - straight
                daily_dt = paid - straight - daily_ot
                week = (start - first_day).days // 7
                so_far = week_straight.get(week, Fraction(0))
                kept = max(Fraction(0), min(straight, spec["week_after"] - so_far))
                week_straight[week] = so_far + kept
                ot = daily_ot + (straight - kept)
                regular += kept
                overtime += ot
                double += daily_dt
                gross += rate * (kept + ot * Fraction(3, 2) + daily_dt * 2) / 60
            out.writerow([emp, two_decimals(regular / 60), two_decimals(overtime / 60),
                          two_decimals(double / 60), two_decimals(gross)])


if __name__ == "__main__":
    main()
