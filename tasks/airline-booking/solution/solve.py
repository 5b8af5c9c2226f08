#!/usr/bin/env python3
# Oracle of airline-booking, independent of the TypeScript reference: reads the fare rules from the
# specification itself (full or short form), then prices every booking with exact fractions.
import csv
import math
import os
import re
import sys
from fractions import Fraction

SPEC = "docs/revenue/fare-and-ticketing-rules.md"


def fail(message: str) -> None:
    sys.exit(f"oracle: {message}")


def find(patterns: list, text: str) -> re.Match:
    for pattern in patterns:
        m = re.search(pattern, text)
        if m:
            return m
    fail(f"the specification has no rule matching any of /{'/, /'.join(patterns)}/")


def read_spec() -> dict:
    """The fare rules as the document states them, in its full (tables) or short (one-line) form."""
    if not os.path.exists(SPEC):
        fail(f"{SPEC} is not present (the oracle runs with the specification)")
    text = open(SPEC, encoding="utf-8").read().replace("**", "")
    flat = re.sub(r"\s+", " ", text).lower()
    # The ladder: table rows "| 2 | B | 90% |" or the short list "Y 100%, B 90%, ...", highest first.
    ladder = [(c.upper(), int(p)) for c, p in re.findall(r"\|\s*\d+\s*\|\s*([a-z])\s*\|\s*(\d+)%\s*\|", flat)]
    if not ladder:
        line = find([r"ladder high to low: ([^.]*)"], flat).group(1)
        ladder = [(c.upper(), int(p)) for c, p in re.findall(r"\b([a-z]) (\d+)%", line)]
    # Change fees: "| Saver | L, V, T | 150.00 |" or "L V T 150.00".
    fees = {}
    rows = re.findall(r"\|\s*[a-z]+\s*\|\s*([a-z](?:\s*,\s*[a-z])*)\s*\|\s*(\d+\.\d\d)\s*\|", flat)
    if not rows:
        line = find([r"change fee/pax[^:]*: ([^\n]*?)\. fare unchanged"], flat).group(1)
        rows = re.findall(r"((?:\b[a-z] )+)(\d+\.\d\d)", line)
    for classes, fee in rows:
        for c in re.findall(r"[a-z]", classes):
            fees[c.upper()] = Fraction(fee)
    rounding = find([r"rounded up to the next (\d+\.\d\d)", r"rounded up to (\d+\.\d\d)"], flat)
    return {
        "ladder": [c for c, _ in ladder],
        "share": dict(ladder),
        "control": find([r"controlling class of a journey is the (highest|lowest) class",
                         r"controlling class = (highest|lowest)"], flat).group(1),
        "fees": fees,
        "per_journey": re.search(r"one change: the journey is charged once|one fee/pax, the highest", flat)
        is not None,
        "tax_step": Fraction(rounding.group(1)),
        "tax_per_journey": re.search(r"per passenger on the fare of each journey|per pax on each journey", flat)
        is not None,
        "transit_exempt": re.search(r"pays no departure charge|\(transit\) exempt", flat) is not None,
    }


def rows(name: str) -> list:
    with open(name, newline="") as f:
        return list(csv.DictReader(f))


def up(value: Fraction, step: Fraction) -> Fraction:
    return math.ceil(value / step) * step


def main() -> None:
    spec = read_spec()
    fares = {(r["origin"], r["destination"]): Fraction(r["y_fare"]) for r in rows("fares.csv")}
    charges = {r["airport"]: Fraction(r["departure_charge"]) for r in rows("airports.csv")}
    tariff = dict(line.split("=", 1) for line in open("tariff.txt").read().split() if "=" in line)
    rate = Fraction(tariff["ticket_tax_percent"]) / 100
    changed = {(r["booking_id"], int(r["segment"])) for r in rows("changes.csv")}
    segments = {}
    for r in rows("segments.csv"):
        segments.setdefault(r["booking_id"], []).append(r)

    def class_fare(y: Fraction, cls: str) -> Fraction:
        return Fraction(math.floor(y * spec["share"][cls] / 100 + Fraction(1, 2)))

    os.makedirs("output", exist_ok=True)
    with open("output/itinerary_prices.csv", "w", newline="") as f:
        out = csv.writer(f, lineterminator="\n")
        out.writerow(["booking_id", "fare", "change_fees", "taxes", "total"])
        for b in rows("bookings.csv"):
            pax = int(b["passengers"])
            journeys = {}
            for s in sorted(segments.get(b["booking_id"], []), key=lambda s: int(s["segment"])):
                journeys.setdefault(s["journey"], []).append(s)
            fare = fees = taxes = Fraction(0)
            for legs in journeys.values():
                classes = sorted((s["fare_class"] for s in legs), key=spec["ladder"].index)
                control = classes[0] if spec["control"] == "highest" else classes[-1]
                through = fares.get((legs[0]["origin"], legs[-1]["destination"]))
                if len(legs) == 1:
                    one = class_fare(fares[(legs[0]["origin"], legs[0]["destination"])], legs[0]["fare_class"])
                elif through is not None:
                    one = class_fare(through, control)
                else:
                    one = sum(class_fare(fares[(s["origin"], s["destination"])], control) for s in legs)
                fare += one * pax
                if spec["tax_per_journey"]:
                    taxes += up(one * rate, spec["tax_step"]) * pax
                hit = [spec["fees"][s["fare_class"]] for s in legs if (b["booking_id"], int(s["segment"])) in changed]
                if hit:
                    fees += (max(hit) if spec["per_journey"] else sum(hit)) * pax
                for i, s in enumerate(legs):
                    if i == 0 or not spec["transit_exempt"]:
                        taxes += charges[s["origin"]] * pax
            if not spec["tax_per_journey"]:
                taxes += up(fare * rate, spec["tax_step"])
            money = [fare, fees, taxes, fare + fees + taxes]
            out.writerow([b["booking_id"], *(f"{float(v):.2f}" for v in money)])


if __name__ == "__main__":
    main()
