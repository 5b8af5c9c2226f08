#!/usr/bin/env python3
# Generates the environment of mortgage-escrow (loans and last year's escrow disbursements), deterministically.
# Usage: python3 tasks/mortgage-escrow/generate.py [out_dir]   (default: environment/ beside this file)
import random
import sys
from pathlib import Path

SEED = 20260
LOANS = 24

# Some loans are placed exactly at the edges of the servicing rules (the generator knows the rules; it
# lives outside environment/ and is never shown to an agent): loan index -> cushion minus low point, in
# cents (positive = shortage, negative = surplus); "deposit" puts the shortage at one monthly deposit.
EDGES = {2: 1240, 6: 2499, 10: 2500, 14: -3117, 18: -5000, 21: "deposit"}
TREND_BP = {"county_tax": 400, "city_tax": 400, "school_tax": 400, "hazard_insurance": 750}


def month_add(year: int, month: int, delta: int) -> tuple:
    index = year * 12 + (month - 1) + delta
    return index // 12, index % 12 + 1


def cents(value: float) -> int:
    return int(round(value * 100))


def money(amount: int) -> str:
    return f"{amount // 100}.{amount % 100:02d}"


def rule_gap(bills: list) -> tuple:
    """(cushion minus low point for a zero starting balance, monthly deposit), in cents, under the house rules."""
    by_month = [0] * 12
    annual = cushion_base = 0
    for k, category, amount in bills:
        projected = (amount * (10000 + TREND_BP.get(category, 0)) * 2 + 10000) // 20000
        by_month[k] += projected
        annual += projected
        if category != "mortgage_insurance":
            cushion_base += projected
    deposit = -(-annual // 12)
    cushion = (cushion_base * 2 + 12) // 24
    balance, low = 0, None
    for out in by_month:
        balance -= out
        low = balance if low is None else min(low, balance)
        balance += deposit
    return cushion - low, deposit


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent / "environment"
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(SEED)
    loans = []
    disbursements = []
    for i in range(LOANS):
        loan_id = f"ESC-{3101 + i}"
        year, month = 2026, 1 + rng.randrange(12)
        # Last year's escrow year: the 12 months before the analysis month, in order.
        history = [month_add(year, month, d) for d in range(-12, 0)]
        bills = []  # (index into history, category, cents)

        county = cents(rng.uniform(1400, 4200))
        first = rng.randrange(6)
        bills.append((first, "county_tax", county // 2 + rng.randrange(-900, 900)))
        bills.append((first + 6, "county_tax", county - county // 2))
        if rng.random() < 0.5:
            bills.append((rng.randrange(12), "city_tax", cents(rng.uniform(300, 1300))))
        if rng.random() < 0.4:
            bills.append((rng.randrange(12), "school_tax", cents(rng.uniform(600, 2200))))
        bills.append((rng.randrange(12), "hazard_insurance", cents(rng.uniform(850, 2600))))
        if rng.random() < 0.3:
            bills.append((rng.randrange(12), "flood_insurance", cents(rng.uniform(420, 1350))))
        if rng.random() < 0.4:
            premium = cents(rng.uniform(38, 185))
            bills.extend((k, "mortgage_insurance", premium) for k in range(12))

        annual = sum(amount for _, _, amount in bills)
        # The balance the account starts the new escrow year with: from a deep hole to a comfortable surplus.
        balance = int(annual * rng.uniform(0.02, 0.55))
        if i in EDGES:
            gap0, deposit = rule_gap(bills)
            balance = gap0 - (deposit if EDGES[i] == "deposit" else EDGES[i])
        loans.append((loan_id, f"{year}-{month:02d}", money(balance)))
        for k, category, amount in sorted(bills, key=lambda b: (b[0], b[1])):
            y, m = history[k]
            day = 1 + rng.randrange(28)
            disbursements.append((loan_id, f"{y}-{m:02d}-{day:02d}", category, money(amount)))

    with open(out / "loans.csv", "w", newline="\n") as f:
        f.write("loan_id,analysis_month,escrow_balance\n")
        for row in loans:
            f.write(",".join(row) + "\n")
    with open(out / "disbursements.csv", "w", newline="\n") as f:
        f.write("loan_id,paid_on,category,amount\n")
        for row in disbursements:
            f.write(",".join(row) + "\n")


if __name__ == "__main__":
    main()
