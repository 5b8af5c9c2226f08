#!/usr/bin/env python3
# Generates the environment of payroll-overtime (employees and two workweeks of time punches), deterministically.
# Usage: python3 tasks/payroll-overtime/generate.py [out_dir]   (default: environment/ beside this file)
import random
import sys
from datetime import datetime, timedelta
from pathlib import Path

SEED = 7733
PERIOD_START = datetime(2026, 3, 2)  # a Monday; the period is two workweeks, Monday to Sunday
DAYS = 14

RATES = ["17.85", "19.40", "21.15", "22.60", "24.35", "26.90", "28.75", "31.20", "33.45", "18.95",
         "23.80", "29.55"]

# Shift patterns: (scheduled start as minutes after midnight, choices of scheduled length in minutes).
PATTERNS = {
    "day": ([360, 420, 450, 480], [270, 360, 366, 480, 510, 540, 600]),
    "swing": ([840, 900, 1080, 1197, 1200], [345, 360, 390, 480, 600, 630]),
    "night": ([1200, 1260, 1290, 1320, 1350], [360, 480, 600, 720, 750, 780]),
    "long": ([360, 390, 1140, 1170], [600, 690, 720, 750, 780]),
}
PROFILES = ["day", "day", "day", "swing", "swing", "night", "night", "long", "long", "day", "swing", "night"]


def stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M")


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent / "environment"
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(SEED)
    employees = []
    punches = []
    for i, profile in enumerate(PROFILES):
        emp = f"E{201 + i}"
        employees.append((emp, RATES[i]))
        starts, lengths = PATTERNS[profile]
        for week in range(2):
            shifts_this_week = rng.choice([3, 4, 4, 5] if profile in ("night", "long") else [4, 5, 5, 5, 6])
            days = sorted(rng.sample(range(7), shifts_this_week))
            start = rng.choice(starts)  # one scheduled start per employee and week: shifts never overlap
            for day in days:
                begin = PERIOD_START + timedelta(days=7 * week + day, minutes=start)
                end = begin + timedelta(minutes=rng.choice(lengths))
                clock_in = begin + timedelta(minutes=rng.randint(-8, 8))
                clock_out = end + timedelta(minutes=rng.randint(-7, 11))
                punches.append((emp, stamp(clock_in), stamp(clock_out)))

    with open(out / "employees.csv", "w", newline="\n") as f:
        f.write("employee_id,base_rate\n")
        for row in employees:
            f.write(",".join(row) + "\n")
    with open(out / "punches.csv", "w", newline="\n") as f:
        f.write("employee_id,clock_in,clock_out\n")
        for row in punches:
            f.write(",".join(row) + "\n")
    with open(out / "pay_period.txt", "w", newline="\n") as f:
        last = PERIOD_START + timedelta(days=DAYS - 1)
        f.write(f"pay_period_start={PERIOD_START:%Y-%m-%d}\npay_period_end={last:%Y-%m-%d}\n")
        f.write("workweek=Monday 00:00 to Sunday 23:59\n")


if __name__ == "__main__":
    main()
