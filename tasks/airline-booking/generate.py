#!/usr/bin/env python3
# Generates the environment of airline-booking (a fictional carrier's network, filed Y fares, bookings,
# date changes and taxes), deterministically. All names, codes and amounts are synthetic.
# Usage: python3 tasks/airline-booking/generate.py [out_dir]   (default: environment/ beside this file)
import random
import sys
from datetime import datetime, timedelta
from pathlib import Path

SEED = 4711
HUB = "KRV"
AIRPORTS = [
    ("KRV", "Korvik", "21.40"),
    ("ALD", "Aldhaven", "12.85"),
    ("BRN", "Brenna", "9.30"),
    ("CSK", "Caskell", "15.65"),
    ("DUV", "Duvane", "7.95"),
    ("ESL", "Esselmoor", "11.20"),
    ("FRO", "Frostholm", "18.05"),
]
SPOKES = [code for code, _, _ in AIRPORTS if code != HUB]
# Direct flights between two spokes, besides every spoke to and from the hub.
DIRECT = [("ALD", "BRN"), ("BRN", "ALD"), ("ESL", "FRO"), ("FRO", "ESL")]
# Connections via the hub whose origin and destination have a through fare filed (others have none).
THROUGH = [("ALD", "CSK"), ("CSK", "ALD"), ("BRN", "DUV"), ("DUV", "BRN"), ("ALD", "FRO"),
           ("FRO", "ALD"), ("CSK", "ESL"), ("DUV", "ALD")]
CLASSES = ["Y", "B", "M", "H", "K", "Q", "L", "V", "T", "N"]
# Shares of the Y fare (percent) of every class under the house ladder; the generator keeps every
# class fare off a rounding tie (a Y fare times a share ending in exactly .50).
SHARES = [100, 90, 80, 70, 62, 55, 48, 42, 36, 30]
TICKET_TAX_PERCENT = "7.5"
BOOKINGS = 34

# Bookings that must exist whatever the seed draws (journeys as lists of (origin, destination, class)),
# so that every rule bites: mixed classes on a connection with and without a through fare, two changed
# segments of one journey in different fare families, a change in the lowest class, a direct spoke flight.
FIXED = [
    (2, [[("ALD", HUB, "Q"), (HUB, "CSK", "V")], [("CSK", HUB, "T"), (HUB, "ALD", "T")]]),
    (1, [[("BRN", HUB, "M"), (HUB, "ESL", "L")]]),
    (3, [[("DUV", HUB, "K"), (HUB, "BRN", "N")], [("BRN", HUB, "H"), (HUB, "DUV", "H")]]),
    (1, [[("ALD", "BRN", "N")], [("BRN", "ALD", "V")]]),
    (2, [[("FRO", HUB, "B"), (HUB, "ALD", "L")]]),
]
FIXED_CHANGES = {0: [1, 2], 1: [2], 2: [1, 2], 3: [1], 4: [2]}  # by index in FIXED: changed segments


def no_tie(y_fare: int) -> bool:
    return all((y_fare * share) % 100 != 50 for share in SHARES)


def fare(rng: random.Random, low: int, high: int) -> int:
    while True:
        value = rng.randint(low, high)
        if no_tie(value):
            return value


def journeys_of(rng: random.Random) -> list:
    origin, destination = rng.sample(SPOKES + [HUB, HUB], 2)
    if origin == destination:
        destination = rng.choice([s for s in SPOKES if s != origin])
    if (origin, destination) in DIRECT or HUB in (origin, destination):
        legs = [(origin, destination)]
    else:
        legs = [(origin, HUB), (HUB, destination)]
    out = [[(o, d, rng.choice(CLASSES)) for o, d in legs]]
    if rng.random() < 0.6:  # a return journey, often in other classes
        back = [(d, o) for o, d in reversed(legs)]
        out.append([(o, d, rng.choice(CLASSES)) for o, d in back])
    return out


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent / "environment"
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(SEED)

    fares = {}
    for spoke in SPOKES:
        fares[(spoke, HUB)] = fare(rng, 140, 420)
        fares[(HUB, spoke)] = fare(rng, 140, 420)
    for o, d in DIRECT:
        fares[(o, d)] = fare(rng, 120, 300)
    for o, d in THROUGH:  # a through fare is cheaper than its two legs' fares added up
        legs = fares[(o, HUB)] + fares[(HUB, d)]
        fares[(o, d)] = fare(rng, legs * 70 // 100, legs * 88 // 100)

    bookings = [(n, j) for n, j in FIXED]
    while len(bookings) < BOOKINGS:
        bookings.append((rng.choice([1, 1, 1, 2, 2, 3, 4]), journeys_of(rng)))
    order = list(range(len(bookings)))
    rng.shuffle(order)

    booking_rows, segment_rows, change_rows = [], [], []
    start = datetime(2026, 5, 4, 6, 0)
    for position, index in enumerate(order):
        passengers, journeys = bookings[index]
        booking_id = f"VK{4100 + position * 7}"
        booked_on = start - timedelta(days=rng.randint(20, 90))
        booking_rows.append((booking_id, str(passengers), booked_on.strftime("%Y-%m-%d")))
        departure = start + timedelta(days=rng.randint(0, 40), minutes=15 * rng.randint(0, 60))
        segment = 0
        segments_here = []
        for journey_no, legs in enumerate(journeys, start=1):
            when = departure + timedelta(days=5 * (journey_no - 1) + rng.randint(0, 3))
            for origin, destination, cls in legs:
                segment += 1
                spoke = SPOKES.index(destination if origin == HUB else origin)
                flight = 100 + 20 * spoke + 2 * rng.randint(0, 4) + (1 if origin == HUB else 0)
                segment_rows.append((booking_id, str(segment), str(journey_no), f"VK{flight}", origin,
                                     destination, when.strftime("%Y-%m-%d %H:%M"), cls))
                segments_here.append((segment, when))
                when += timedelta(minutes=rng.choice([55, 70, 95, 120]) + 90)
        if index < len(FIXED):
            changed = FIXED_CHANGES.get(index, [])
        else:
            changed = [s for s, _ in segments_here if rng.random() < 0.18]
        for s, when in segments_here:
            if s in changed:
                moved = when + timedelta(days=rng.choice([-2, -1, 1, 2, 3]))
                change_rows.append((booking_id, str(s), moved.strftime("%Y-%m-%d %H:%M")))

    def write(name: str, header: str, rows: list) -> None:
        with open(out / name, "w", newline="\n") as f:
            f.write(header + "\n")
            for row in rows:
                f.write(",".join(row) + "\n")

    write("airports.csv", "airport,city,departure_charge", AIRPORTS)
    write("fares.csv", "origin,destination,y_fare",
          [(o, d, f"{v}.00") for (o, d), v in sorted(fares.items())])
    write("bookings.csv", "booking_id,passengers,booked_on", booking_rows)
    write("segments.csv", "booking_id,segment,journey,flight,origin,destination,departure,fare_class",
          segment_rows)
    write("changes.csv", "booking_id,segment,new_departure", change_rows)
    with open(out / "tariff.txt", "w", newline="\n") as f:
        f.write(f"currency=EUR\nticket_tax_percent={TICKET_TAX_PERCENT}\n")


if __name__ == "__main__":
    main()
