#!/usr/bin/env python3
# Oracle of contract-clause, independent of the TypeScript reference: reads the conventions from the
# specification document itself (tables and rules, or their short form), then scores clauses and contracts with exact decimals.
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


def table_rows(text: str, width: int) -> list:
    rows = []
    for line in text.splitlines():
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) == width:
                rows.append(cells)
    return rows


def read_caps(text: str, flat: str) -> dict:
    caps = {c[0]: int(c[1]) for c in table_rows(text, 2) if re.fullmatch(r"\d+", c[1])}
    if not caps:  # the short form: "caps (before multiplier): liability 12, indemnity 10, ..."
        m = re.search(r"caps[^:]*: ([^.\n]+)", flat)
        caps = {k: int(v) for k, v in re.findall(r"([a-z]+) (\d+)", m.group(1))} if m else {}
    return caps


def read_jurisdictions(text: str, flat: str) -> tuple:
    multipliers, aliases, other = {}, {}, None
    for name, value, spellings in (c for c in table_rows(text, 3) if re.fullmatch(r"\d\.\d\d", c[1])):
        if name.startswith("any other"):
            other = Decimal(value)
            continue
        multipliers[name] = Decimal(value)
        for spelling in spellings.split(","):
            aliases[spelling.strip().lower()] = name
    if not multipliers:  # the short form: "new york/ny/state of new york 1.00; ...; other 1.30"
        m = re.search(r"mult: ([^\n]+)", flat)
        for entry in m.group(1).split(";") if m else []:
            found = re.fullmatch(r"\s*(.+?) (\d\.\d\d)\.?\s*", entry)
            if not found:
                continue
            spellings = [s.strip() for s in found.group(1).split("/")]
            if spellings == ["other"]:
                other = Decimal(found.group(2))
                continue
            multipliers[spellings[0]] = Decimal(found.group(2))
            aliases.update((s, spellings[0]) for s in spellings)
    return multipliers, aliases, other


def first(patterns: list, text: str, what: str) -> re.Match:
    for pattern in patterns:
        m = re.search(pattern, text)
        if m:
            return m
    fail(f"cannot find {what}")


def read_spec() -> dict:
    """The conventions as the document states them, in its full (tables) or short (one-line) form."""
    if not os.path.exists(SPEC):
        fail(f"{SPEC} is not present (the oracle runs with the specification)")
    text = re.sub(r"[ \t]+", " ", open(SPEC, encoding="utf-8").read().replace("**", "")).lower()
    flat = re.sub(r" *\n(?![-|#\n]) *", " ", text)  # wrapped lines joined, list items and tables kept
    counts = {"once": 1, "twice": 2}
    hits_rule = first([r"a term counts at most (once|twice) per clause", r"a term counts (once|twice) per clause"],
                      flat, "the per-clause term count rule")
    floor = re.search(r"negative raw score counts as 0|raw ?< ?0 ?-> ?0", flat) is not None
    caps = read_caps(text, flat)
    multipliers, aliases, other = read_jurisdictions(text, flat)
    if not caps or not multipliers or other is None:
        fail("cannot read the caps or the jurisdiction tables")
    medium = first([r"\| below (\d+(?:\.\d+)?) \| low \|", r"tier <(\d+(?:\.\d+)?) low"], flat, "the medium tier")
    high = first([r"\| (\d+(?:\.\d+)?) and above \| high \|", r"<(\d+(?:\.\d+)?) medium, else high"],
                 flat, "the high tier")
    escalate = first([r"maximum clause score is (\d+(?:\.\d+)?) or more moves up one tier",
                      r"max ?>= ?(\d+(?:\.\d+)?) -> one tier up"], flat, "the escalation rule")
    return {"max_hits": counts[hits_rule.group(1)], "floor": floor, "caps": caps, "multipliers": multipliers,
            "aliases": aliases, "other": other, "medium": Decimal(medium.group(1)),
            "high": Decimal(high.group(1)), "escalate": Decimal(escalate.group(1))}


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
