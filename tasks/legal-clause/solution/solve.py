#!/usr/bin/env python3
# Oracle of legal-clause, independent of the TypeScript reference: reads the scoring rules from the
# specification itself (tables or their short form), then scores clauses and contracts with exact
# fractions.
import csv
import json
import os
import re
import sys
from fractions import Fraction

SPEC = "docs/legal/clause-risk-scoring-manual.md"
SEVERITIES = ["critical", "high", "medium", "low"]
BANDS = ["low", "moderate", "high", "severe"]


def fail(message: str) -> None:
    sys.exit(f"oracle: {message}")


def find(patterns: list, text: str) -> re.Match:
    for pattern in patterns:
        m = re.search(pattern, text)
        if m:
            return m
    fail(f"the specification has no rule matching any of /{'/, /'.join(patterns)}/")


def pairs(text: str) -> list:
    """Two-column table rows as (first cell, second cell), lower case."""
    rows = []
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("|") else []
        if len(cells) == 2:
            rows.append((cells[0], cells[1]))
    return rows


def listed(flat: str, label: str, value: str) -> list:
    """The short form's "label: name value, name value; ..." as (name, value) pairs."""
    m = find([label + r": ([^\n]*?)\.(?: -|$)"], flat)
    return re.findall(r"([a-z_][a-z_ ]*?) (" + value + r")(?=[,;.]|$)", m.group(1))


def read_spec() -> dict:
    if not os.path.exists(SPEC):
        fail(f"{SPEC} is not present (the oracle runs with the specification)")
    text = open(SPEC, encoding="utf-8").read().replace("**", "").lower()
    flat = re.sub(r"\s+", " ", text)
    rows = pairs(text)
    points = {k: Fraction(v) for k, v in rows if k in SEVERITIES and re.fullmatch(r"\d+", v)}
    if not points:
        points = {k: Fraction(v) for k, v in listed(flat, "points", r"\d+") if k in SEVERITIES}
    laws = {k: Fraction(v) for k, v in rows if re.fullmatch(r"\d\.\d", v)}
    if not laws:
        laws = {k.strip(): Fraction(v) for k, v in listed(flat, "multiplier by jurisdiction", r"\d\.\d")}
    other = next((v for k, v in laws.items() if k.startswith("any other") or k == "other"), None)
    laws = {k: v for k, v in laws.items() if not (k.startswith("any other") or k == "other")}
    caps = {k: int(v) for k, v in rows if k not in SEVERITIES and re.fullmatch(r"\d+", v)}
    if not caps:
        caps = {k: int(v) for k, v in listed(flat, "caps", r"\d+")}
    repeats = find([r"(second and third|2nd and 3rd) (?:occurrences )?half"], flat)
    order = find([r"the cap applies (after|before) the jurisdiction multiplier", r"cap (after|before) multiplier"],
                 flat).group(1)
    thresholds = [Fraction(v) for v in re.findall(r"\| (\d+\.\d\d) (?:up to \d+\.\d\d|and above) \|", flat)]
    if not thresholds:
        m = find([r"bands: < (\d+) low, (\d+)-[\d.]+ moderate, (\d+)-[\d.]+ high, >= (\d+) severe"], flat)
        thresholds = [Fraction(m.group(2)), Fraction(m.group(3)), Fraction(m.group(4))]
    if other is None or len(points) != 4 or len(thresholds) != 3 or not caps or repeats is None:
        fail("the specification lacks a table or rule the scoring needs")
    return {
        "points": points,
        "repeats": [Fraction(1), Fraction(1, 2), Fraction(1, 2)],
        "laws": laws,
        "other": other,
        "caps": caps,
        "cap_after": order == "after",
        "category_max": re.search(r"highest clause score (of each|per) category", flat) is not None,
        "thresholds": thresholds,
    }


def rows(name: str) -> list:
    with open(name, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def number(value: Fraction):
    return int(value) if value.denominator == 1 else float(value)


def main() -> None:
    spec = read_spec()
    keywords = [(r["keyword"].lower(), r["severity"]) for r in rows("keywords.csv")]
    multiplier = {}
    for c in rows("contracts.csv"):
        multiplier[c["contract_id"]] = spec["laws"].get(c["jurisdiction"].strip().lower(), spec["other"])
    best = {c: {} for c in multiplier}
    clauses = []
    for r in rows("clauses.csv"):
        text = r["text"].lower()
        score = Fraction(0)
        for keyword, severity in keywords:
            n = len(re.findall(r"(?<![\w-])" + re.escape(keyword) + r"(?![\w-])", text))
            score += spec["points"][severity] * sum(spec["repeats"][:n])
        m = multiplier[r["contract_id"]]
        cap = spec["caps"][r["category"]]
        if spec["cap_after"]:
            final, capped = min(cap, score * m), score * m > cap
        else:
            final, capped = min(cap, score) * m, score > cap
        per = best[r["contract_id"]]
        per[r["category"]] = max(per.get(r["category"], 0), final) if spec["category_max"] \
            else per.get(r["category"], 0) + final
        clauses.append({"clause_id": r["clause_id"], "keyword_score": number(score), "score": number(final),
                        "capped": capped})
    contracts = []
    for contract_id, m in multiplier.items():
        total = sum(best[contract_id].values(), Fraction(0))
        band = BANDS[sum(1 for t in spec["thresholds"] if total >= t)]
        contracts.append({"contract_id": contract_id, "multiplier": number(m), "total": number(total),
                          "band": band})
    os.makedirs("output", exist_ok=True)
    with open("output/clause_risk.json", "w", encoding="utf-8") as f:
        json.dump({"clauses": clauses, "contracts": contracts}, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main()
