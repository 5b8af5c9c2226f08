"""Oracle for bom-costing: the CS-4 roll-up, written independently of the TypeScript reference.

Runs in the sandbox's work directory with the Python standard library only and writes
output/assembly_costs.csv.
"""
import csv
import os
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

OVERHEAD = Fraction(112, 100)  # CS-4.2: 12% per assembly, compounding per level
MISSING_PRICE = Fraction(0)  # CS-4.3: an unpriced bought-in part costs 0.00
CYCLE_SENTINEL = "-1.00"  # CS-4.4

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


def cost(assembly):
    """Exact cost as a fraction: no intermediate rounding (CS-4.5)."""
    if assembly not in cost_cache:
        total = Fraction(0)
        for child, quantity in components[assembly]:
            unit = cost(child) if child in components else prices.get(child, MISSING_PRICE)
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
