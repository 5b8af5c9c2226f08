#!/usr/bin/env python3
# Oracle of contract-clause, independent of the TypeScript reference: reads the conventions from the
# specification document itself (tables and rules), then scores clauses and contracts with exact decimals.
import csv
import json
import os
import re
import sys
from decimal import Decimal

SPEC = "docs/internal/clause-risk-scoring.md"
TIERS = ["low", "medium", "high"]


def fail(message: str) -> None:
    sys.exit(f"oracle: {message}")


def read_spec() -> dict:
    if not os.path.exists(SPEC):
        fail(f"{SPEC} is not present (the oracle runs with the specification)")
    text = re.sub(r"[ \t]+", " ", open(SPEC, encoding="utf-8").read())  # tables may be padded
    counts = {"once": 1, "twice": 2}
    m = re.search(r"A term counts at most (once|twice) per clause", text)
    if not m:
        fail("cannot find the per-clause term count rule")
    spec = {"max_hits": counts[m.group(1)], "floor": "negative raw score counts as 0" in text}
    caps, multipliers, aliases = {}, {}, {}
    other = None
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("|") else []
        if len(cells) == 2 and re.fullmatch(r"\d+", cells[1]):
            caps[cells[0]] = int(cells[1])
        elif len(cells) == 3 and re.fullmatch(r"\d\.\d\d", cells[1]):
            if cells[0].startswith("any other"):
                other = Decimal(cells[1])
            else:
                multipliers[cells[0]] = Decimal(cells[1])
                for spelling in cells[2].split(","):
                    aliases[spelling.strip().lower()] = cells[0]
    if not caps or not multipliers or other is None:
        fail("cannot read the caps or the jurisdiction tables")
    low = re.search(r"\| below (\d+\.\d\d) \| low \|", text)
    high = re.search(r"\| (\d+\.\d\d) and above \| high \|", text)
    esc = re.search(r"maximum clause score is (\d+\.\d\d) or more moves up one tier", text)
    if not (low and high and esc):
        fail("cannot read the tier table or the escalation rule")
    spec.update(caps=caps, multipliers=multipliers, aliases=aliases, other=other)
    spec.update(medium=Decimal(low.group(1)), high=Decimal(high.group(1)), escalate=Decimal(esc.group(1)))
    return spec


def hits(text: str, term: str) -> int:
    return len(re.findall(r"(?<![a-z0-9])" + re.escape(term.lower()) + r"(?![a-z0-9])", text.lower()))


def main() -> None:
    spec = read_spec()
    with open("risk_lexicon.csv", newline="") as f:
        lexicon = [(r["term"], int(r["weight"])) for r in csv.DictReader(f)]
    clauses = {}
    with open("clauses.jsonl") as f:
        for line in f:
            if line.strip():
                c = json.loads(line)
                clauses.setdefault(c["contract_id"], []).append(c)
    with open("contracts.csv", newline="") as f:
        contracts = list(csv.DictReader(f))

    os.makedirs("output", exist_ok=True)
    with open("output/contract_risk.csv", "w", newline="") as f:
        out = csv.writer(f, lineterminator="\n")
        out.writerow(["contract_id", "risk_score", "max_clause_score", "risk_tier"])
        for contract in contracts:
            place = spec["aliases"].get(contract["governing_law"].strip().lower())
            mult = spec["multipliers"][place] if place else spec["other"]
            scores = []
            for clause in clauses.get(contract["contract_id"], []):
                raw = sum(w * min(hits(clause["text"], t), spec["max_hits"]) for t, w in lexicon)
                if spec["floor"]:
                    raw = max(raw, 0)
                raw = min(raw, spec["caps"].get(clause["type"], raw))
                scores.append(Decimal(raw) * mult)
            total = sum(scores, Decimal(0))
            top = max(scores) if scores else Decimal(0)
            tier = 2 if total >= spec["high"] else 1 if total >= spec["medium"] else 0
            if top >= spec["escalate"]:
                tier = min(tier + 1, 2)
            out.writerow([contract["contract_id"], f"{total:.2f}", f"{top:.2f}", TIERS[tier]])


if __name__ == "__main__":
    main()
