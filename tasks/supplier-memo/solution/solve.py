#!/usr/bin/env python3
# Oracle of supplier-memo, independent of the TypeScript reference: reads the sourcing conventions from
# the evaluation standard itself (full or short form), ranks the quotes by effective landed cost in
# exact decimal arithmetic and writes the recommendation memo.
import csv
import os
import re
import sys
from decimal import ROUND_HALF_UP, Decimal

SPEC = os.environ.get("KGATE_ARTEFACT_PATH", "docs/procurement/supplier-evaluation-standard.md")


def fail(message: str) -> None:
    sys.exit(f"oracle: {message}")


def find(patterns: list, text: str) -> re.Match:
    for pattern in patterns:
        m = re.search(pattern, text)
        if m:
            return m
    fail(f"the specification has no rule matching any of /{'/, /'.join(patterns)}/")


def read_spec() -> dict:
    """The conventions as the document states them, in its full or short form."""
    if not os.path.exists(SPEC):
        fail(f"{SPEC} is not present (the oracle runs with the specification)")
    flat = re.sub(r"\s+", " ", open(SPEC, encoding="utf-8").read().replace("**", "")).lower()
    duty = find([r"import duty of (\d+(?:\.\d+)?)% of the cif value", r"non-us suppliers (\d+(?:\.\d+)?)% of cif"], flat)
    carry = find([r"beyond (\d+) days adds (\d+(?:\.\d+)?)% of the unit price per day",
                  r"(?P<rate>\d+(?:\.\d+)?)% of the unit price per day of lead time beyond (?P<days>\d+) days"], flat)
    if carry.groupdict().get("days"):
        grace, rate = carry.group("days"), carry.group("rate")
    else:
        grace, rate = carry.group(1), carry.group(2)
    limit = find([r"defect rate is above (\d+(?:\.\d+)?)%", r"defect rate above (\d+(?:\.\d+)?)%"], flat)
    return {
        "duty": Decimal(duty.group(1)) / 100,
        "grace": int(grace),
        "carry": Decimal(rate) / 100,
        "limit": Decimal(limit.group(1)),
    }


def main() -> None:
    spec = read_spec()
    with open("quotes.csv", newline="", encoding="utf-8") as f:
        quotes = list(csv.DictReader(f))
    excluded = [q["supplier"] for q in quotes if Decimal(q["defect_rate_pct"]) > spec["limit"]]
    ranked = []
    for q in quotes:
        if q["supplier"] in excluded:
            continue
        price = Decimal(q["unit_price"])
        cif = price + Decimal(q["freight_per_shipment"]) / Decimal(q["units_per_shipment"])
        duty = Decimal(0) if q["country"] == "US" else spec["duty"] * cif
        late = max(0, int(q["lead_time_days"]) - spec["grace"])
        cost = (cif + duty + late * spec["carry"] * price).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
        ranked.append((cost, q["supplier"]))
    ranked.sort()
    (cost1, first), (cost2, second) = ranked[0], ranked[1]
    os.makedirs("output", exist_ok=True)
    lines = [
        f"Recommended supplier: {first}",
        "",
        "To: Purchasing. Subject: award of next year's volume.",
        "",
        f"{first} has the lowest effective landed cost of the qualified quotes: {cost1} USD per unit.",
        f"Runner-up: {second}, at {cost2} USD per unit.",
        ("Excluded for their quoted defect rate: " + ", ".join(excluded) + ".") if excluded else "No quote was excluded.",
    ]
    with open("output/recommendation.md", "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


main()
