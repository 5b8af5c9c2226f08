#!/usr/bin/env python3
# Oracle of mortgage-escrow, independent of the TypeScript reference: reads the conventions from the
# servicing specification itself (full or short form), then runs each loan's escrow analysis in exact
# decimal arithmetic.
import csv
import os
import re
import sys
from decimal import ROUND_CEILING, ROUND_HALF_UP, Decimal

SPEC = "docs/servicing/escrow-analysis-conventions.md"
CENT = Decimal("0.01")
COLUMNS = ["loan_id", "annual_disbursements", "monthly_deposit", "cushion", "low_point", "shortage",
           "surplus_refund", "new_monthly_payment"]


def fail(message: str) -> None:
    sys.exit(f"oracle: {message}")


def find(patterns: list, text: str) -> re.Match:
    for pattern in patterns:
        m = re.search(pattern, text)
        if m:
            return m
    fail(f"the specification has no rule matching any of /{'/, /'.join(patterns)}/")


def read_trend(text: str) -> dict:
    trend = {m.group(1): Decimal(m.group(2)) / 100
             for m in re.finditer(r"^\| (\w+) \| \+(\d+(?:\.\d+)?)% \|$", text, re.MULTILINE)}
    # The short form: "county/city/school_tax +4.0%, hazard_insurance +7.5%, flood/mortgage_insurance +0%".
    for names, rate in ([] if trend else re.findall(r"([a-z_/]+) \+(\d+(?:\.\d+)?)%", text)):
        parts = names.split("/")
        suffix = parts[-1][parts[-1].index("_"):] if "_" in parts[-1] else ""
        for part in parts:
            trend[part if "_" in part else part + suffix] = Decimal(rate) / 100
    return trend


def read_spec() -> dict:
    """The conventions as the document states them, in its full (sections) or short (one-line) form."""
    if not os.path.exists(SPEC):
        fail(f"{SPEC} is not present (the oracle runs with the specification)")
    text = re.sub(r"[ \t]+", " ", open(SPEC, encoding="utf-8").read().replace("**", "")).lower()
    flat = re.sub(r"\s+", " ", text)
    trend = read_trend(text)
    if not trend:
        fail("cannot read the trend table")
    modes = {"up": ROUND_CEILING, "half up": ROUND_HALF_UP}
    number = r"(\d+(?:\.\d+)?)"
    cushion = find([r"cushion = \w+ months? \(1/(\d+)\) of the projected annual disbursements excluding (\w+)",
                    r"cushion = 1/(\d+) of annual excl\.? (\w+)"], flat)
    spread = find([r"collected over (\d+) monthly installments; a larger shortage over (\d+)",
                   r"<= one deposit: (\d+) installments, else (\d+)"], flat)
    return {
        "trend": trend,
        "deposit": modes[find([r"monthly deposit = annual disbursements / 12, rounded (up|half up)",
                               r"deposit = annual ?/ ?12 rounded (up|half up)"], flat).group(1)],
        "cushion_divisor": int(cushion.group(1)),
        "cushion_excludes": cushion.group(2),
        "pay_first": re.search(r"disbursements are paid first, then the month's deposit is credited"
                               r"|disbursements first, then deposit", flat) is not None,
        "waiver": Decimal(find([r"a shortage below \$" + number + " is waived", r"< \$" + number + " waived"],
                               flat).group(1)),
        "small": int(spread.group(1)),
        "large": int(spread.group(2)),
        "installment": modes[find([r"installment = shortage / number of installments, rounded (up|half up)",
                                   r"installment (up|half up)"], flat).group(1)],
        "refund_at": Decimal(find([r"a surplus of \$" + number + " or more is refunded",
                                   r"refund if >= \$" + number], flat).group(1)),
    }


def month_number(text: str) -> int:
    year, month = text.split("-")[:2]
    return int(year) * 12 + int(month) - 1


def analyse(spec: dict, start: Decimal, first_month: int, bills: list) -> list:
    outflow = [Decimal(0)] * 12
    annual = cushion_base = Decimal(0)
    for month, category, amount in bills:
        projected = (amount * (1 + spec["trend"].get(category, Decimal(0)))).quantize(CENT, ROUND_HALF_UP)
        outflow[(month - first_month) % 12] += projected
        annual += projected
        if category != spec["cushion_excludes"]:
            cushion_base += projected
    deposit = (annual / 12).quantize(CENT, spec["deposit"])
    cushion = (cushion_base / spec["cushion_divisor"]).quantize(CENT, ROUND_HALF_UP)
    balance, lows = start, []
    for out in outflow:
        if spec["pay_first"]:
            balance -= out
            lows.append(balance)
            balance += deposit
        else:
            balance += deposit - out
            lows.append(balance)
    low = min(lows)
    shortage = max(cushion - low, Decimal(0))
    if shortage < spec["waiver"]:
        shortage = Decimal(0)
    installments = spec["small"] if shortage <= deposit else spec["large"]
    installment = (shortage / installments).quantize(CENT, spec["installment"])
    surplus = max(low - cushion, Decimal(0))
    refund = surplus if surplus >= spec["refund_at"] else Decimal(0)
    return [annual, deposit, cushion, low, shortage, refund, deposit + installment]


def main() -> None:
    spec = read_spec()
    bills = {}
    with open("disbursements.csv", newline="") as f:
        for row in csv.DictReader(f):
            bills.setdefault(row["loan_id"], []).append(
                (month_number(row["paid_on"]), row["category"], Decimal(row["amount"])))
    os.makedirs("output", exist_ok=True)
    with open("loans.csv", newline="") as f, open("output/escrow_analysis.csv", "w", newline="") as out:
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(COLUMNS)
        for loan in csv.DictReader(f):
            values = analyse(spec, Decimal(loan["escrow_balance"]), month_number(loan["analysis_month"]),
                             bills.get(loan["loan_id"], []))
            writer.writerow([loan["loan_id"]] + [f"{v:.2f}" for v in values])


if __name__ == "__main__":
    main()
