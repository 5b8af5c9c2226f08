#!/usr/bin/env python3
# Oracle of mortgage-escrow, independent of the TypeScript reference: reads the conventions from the
# servicing specification itself, then runs each loan's escrow analysis in exact decimal arithmetic.
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


def find(pattern: str, text: str) -> re.Match:
    m = re.search(pattern, text)
    if not m:
        fail(f"the specification has no rule matching /{pattern}/")
    return m


def read_spec() -> dict:
    if not os.path.exists(SPEC):
        fail(f"{SPEC} is not present (the oracle runs with the specification)")
    text = re.sub(r"[ \t]+", " ", open(SPEC, encoding="utf-8").read())  # tables may be padded
    flat = re.sub(r"\s+", " ", text)
    trend = {m.group(1): Decimal(m.group(2)) / 100
             for m in re.finditer(r"^\| (\w+) \| \+(\d+\.\d)% \|$", text, re.MULTILINE)}
    if not trend:
        fail("cannot read the trend table")
    modes = {"up": ROUND_CEILING, "half up": ROUND_HALF_UP}
    cushion = find(r"Cushion = \*\*\w+ months?\*\* \(1/(\d+)\) of the projected annual disbursements "
                   r"\*\*excluding (\w+)\*\*", flat)
    spread = find(r"collected over \*\*(\d+)\*\* monthly installments; a larger shortage over \*\*(\d+)\*\*", flat)
    return {
        "trend": trend,
        "deposit": modes[find(r"Monthly deposit = annual disbursements / 12, \*\*rounded (up|half up)\*\*", flat).group(1)],
        "cushion_divisor": int(cushion.group(1)),
        "cushion_excludes": cushion.group(2),
        "pay_first": "disbursements are paid first, then the month's deposit is credited" in flat,
        "waiver": Decimal(find(r"a shortage below \$(\d+\.\d\d) is waived", flat).group(1)),
        "small": int(spread.group(1)),
        "large": int(spread.group(2)),
        "installment": modes[find(r"Installment = shortage / number of installments, \*\*rounded (up|half up)\*\*", flat).group(1)],
        "refund_at": Decimal(find(r"A surplus of \$(\d+\.\d\d) or more is refunded", flat).group(1)),
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
