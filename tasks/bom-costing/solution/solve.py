"""Oracle for bom-costing: the CS-4 roll-up, written independently of the TypeScript reference.

Runs in the sandbox's work directory with the Python standard library only. It reads the three
conventions (overhead rate, unpriced parts, circular-reference sentinel) from the specification
placed in the sandbox, so placed over a variant it computes that variant's answer; without the
specification it stops. Exact fractions throughout. Writes output/assembly_costs.csv.
"""
import csv
import os
import re
import sys
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

SPEC = "docs/costing/rollup-conventions.md"


def fail(message):
    sys.exit(f"oracle: {message}")


def read_spec():
    if not os.path.exists(SPEC):
        fail(f"{SPEC} is not present (the oracle runs with the specification)")
    text = re.sub(r"\s+", " ", open(SPEC, encoding="utf-8").read()).replace("*", "")
    rate = re.search(r"overhead of (\d+(?:\.\d+)?)%|(\d+(?:\.\d+)?)% overhead", text)
    unpriced = re.search(r"(?:without a price|no row in the price list)[^.]*?(0\.00|mean unit price)", text)
    sentinel = re.search(r"[Rr]eports? (-?\d+\.\d\d)", text)
    if not (rate and unpriced and sentinel):
        fail("cannot read the overhead rate, the unpriced-part rule or the circular-reference value")
    return {
        "overhead": 1 + Fraction(rate.group(1) or rate.group(2)) / 100,
        "sibling_mean": unpriced.group(1) == "mean unit price",
        "sentinel": sentinel.group(1),
    }


spec = read_spec()
OVERHEAD = spec["overhead"]  # CS-4.2: per assembly, compounding per level
CYCLE_SENTINEL = spec["sentinel"]  # CS-4.4

with open("bom.csv", newline="") as f:
    lines = list(csv.DictReader(f))
with open("prices.csv", newline="") as f:
    prices = {row["part"]: Fraction(row["unit_price"]) for row in csv.DictReader(f)}

components = {}
for line in lines:
    components.setdefault(line["parent"], []).append((line["child"], int(line["quantity"])))


def reaches_cycle(start):
    """True when expanding `start` ever meets an assembly already on the expansion path."""
    stack = [(start, iter(components[start]))]
    on_path = {start}
    explored = set()
    while stack:
        node, children = stack[-1]
        for child, _ in children:
            if child not in components:
                continue
            if child in on_path:
                return True
            if child not in explored:
                stack.append((child, iter(components[child])))
                on_path.add(child)
                break
        else:
            stack.pop()
            on_path.discard(node)
            explored.add(node)
    return False


cost_cache = {}


def unpriced_part(siblings):
    """CS-4.3: 0.00, or (under a variant that says so) the mean price of the priced leaf siblings."""
    if not spec["sibling_mean"]:
        return Fraction(0)
    priced = [prices[c] for c, _ in siblings if c not in components and c in prices]
    return sum(priced, Fraction(0)) / len(priced) if priced else Fraction(0)


def cost(assembly):
    """Exact cost as a fraction: no intermediate rounding (CS-4.5)."""
    if assembly not in cost_cache:
        total = Fraction(0)
        siblings = components[assembly]
        for child, quantity in siblings:
            if child in components:
                unit = cost(child)
            else:
                unit = prices[child] if child in prices else unpriced_part(siblings)
            total += quantity * unit
        cost_cache[assembly] = OVERHEAD * total
    return cost_cache[assembly]


def cents(value):
    exact = Decimal(value.numerator) / Decimal(value.denominator)
    return str(exact.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


os.makedirs("output", exist_ok=True)
with open("output/assembly_costs.csv", "w", newline="") as out:
    writer = csv.writer(out)
    writer.writerow(["assembly", "unit_cost"])
    for assembly in sorted(components):
        writer.writerow([assembly, CYCLE_SENTINEL if reaches_cycle(assembly) else cents(cost(assembly))])
