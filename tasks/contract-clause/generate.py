#!/usr/bin/env python3
# Generates the environment of contract-clause (contracts, clauses, public risk lexicon), deterministically.
# Usage: python3 tasks/contract-clause/generate.py [out_dir]   (default: environment/ beside this file)
import json
import random
import re
import sys
from pathlib import Path

SEED = 4101

# The public risk lexicon: every term and its weight (negative weights are mitigating language).
LEXICON = [
    ("unlimited liability", 6),
    ("liquidated damages", 4),
    ("consequential damages", 3),
    ("indemnify", 4),
    ("hold harmless", 3),
    ("penalty", 3),
    ("terminate for convenience", 3),
    ("auto-renew", 3),
    ("non-compete", 4),
    ("exclusive", 3),
    ("most favoured nation", 3),
    ("sole discretion", 2),
    ("without notice", 2),
    ("perpetual", 2),
    ("irrevocable", 2),
    ("capped at", -3),
    ("mutual", -2),
    ("prior written notice", -2),
    ("good faith", -1),
    ("reasonable", -1),
]

# Sentences that carry exactly one lexicon term each (several per term so a term can repeat in a clause).
FRAGMENTS = {
    "unlimited liability": [
        "The Supplier accepts unlimited liability for any breach of this Agreement.",
        "Nothing in this Agreement limits the unlimited liability of the Supplier for data loss.",
    ],
    "liquidated damages": [
        "Late delivery shall attract liquidated damages of two percent of the order value per week.",
        "The parties agree that liquidated damages are a genuine pre-estimate of loss.",
    ],
    "consequential damages": [
        "The Supplier shall be liable for consequential damages arising from service outages.",
        "Claims for consequential damages may be brought within six years.",
    ],
    "indemnify": [
        "The Supplier shall indemnify the Customer against all third-party claims.",
        "The Vendor agrees to indemnify the Client for any regulatory fines.",
    ],
    "hold harmless": [
        "The Contractor shall hold harmless the Company and its affiliates.",
        "Each subcontractor must also hold harmless the Customer.",
    ],
    "penalty": [
        "A penalty of five hundred dollars applies to each missed service level.",
        "Any late invoice incurs a penalty charged at the start of the following month.",
    ],
    "terminate for convenience": [
        "The Customer may terminate for convenience at any time.",
        "Either party may terminate for convenience after the first contract year.",
    ],
    "auto-renew": [
        "This Agreement shall auto-renew for successive twelve month terms.",
        "Orders placed under this Agreement auto-renew unless cancelled in writing.",
    ],
    "non-compete": [
        "The Supplier accepts a non-compete obligation covering the territory for three years.",
        "Key personnel are bound by a non-compete undertaking.",
    ],
    "exclusive": [
        "The Customer grants the Supplier exclusive rights in the territory.",
        "All deliverables are subject to an exclusive licence in favour of the Customer.",
    ],
    "most favoured nation": [
        "Pricing is subject to a most favoured nation undertaking by the Supplier.",
        "The Vendor gives a most favoured nation commitment on all list prices.",
    ],
    "sole discretion": [
        "Acceptance of deliverables is at the sole discretion of the Customer.",
        "Service credits are granted at the sole discretion of the Provider.",
    ],
    "without notice": [
        "The Provider may suspend the services without notice.",
        "Prices may change without notice during any renewal term.",
    ],
    "perpetual": [
        "The confidentiality obligations are perpetual.",
        "The Customer receives a perpetual right to use the materials.",
    ],
    "irrevocable": [
        "The licence granted under this clause is irrevocable.",
        "The Supplier gives an irrevocable consent to audits.",
    ],
    "capped at": [
        "Total liability is capped at the fees paid in the preceding twelve months.",
        "Any claim under this clause is capped at one million dollars.",
    ],
    "mutual": [
        "The obligations in this clause are mutual.",
        "This undertaking is mutual and binds both parties equally.",
    ],
    "prior written notice": [
        "Termination requires thirty days prior written notice.",
        "Changes take effect only after prior written notice to the other party.",
    ],
    "good faith": [
        "The parties shall negotiate any dispute in good faith.",
        "Each party shall act in good faith when exercising its rights.",
    ],
    "reasonable": [
        "The Supplier shall use reasonable care in performing the services.",
        "Costs must be reasonable and supported by receipts.",
    ],
}

# Neutral sentences per clause type: they carry no lexicon term (checked below).
FILLER = {
    "liability": [
        "This clause survives the expiry of the Agreement.",
        "Neither party excludes liability for fraud.",
        "Liability for death or personal injury is not limited.",
    ],
    "indemnity": [
        "The indemnified party shall notify claims promptly.",
        "Defence of any claim is conducted by the party giving the indemnity.",
    ],
    "termination": [
        "On termination each party returns the property of the other.",
        "Accrued rights are not affected by termination.",
    ],
    "payment": [
        "Invoices are payable within thirty days of receipt.",
        "All amounts are stated net of sales tax.",
    ],
    "confidentiality": [
        "Confidential information excludes information already in the public domain.",
        "Disclosure to professional advisers is permitted.",
    ],
    "ip": [
        "Background intellectual property remains with its owner.",
        "Each party keeps ownership of its pre-existing materials.",
    ],
    "exclusivity": [
        "The territory is defined in Schedule 2.",
        "Volume commitments are reviewed every quarter.",
    ],
    "general": [
        "This Agreement is the entire agreement between the parties.",
        "Notices are sent to the addresses in Schedule 1.",
        "No waiver is effective unless in writing.",
    ],
}

# Terms that plausibly occur in each clause type.
TYPE_TERMS = {
    "liability": ["unlimited liability", "consequential damages", "liquidated damages", "penalty", "capped at", "mutual"],
    "indemnity": ["indemnify", "hold harmless", "without notice", "irrevocable", "mutual", "reasonable"],
    "termination": ["terminate for convenience", "without notice", "auto-renew", "sole discretion", "prior written notice", "good faith"],
    "payment": ["penalty", "sole discretion", "most favoured nation", "without notice", "reasonable"],
    "confidentiality": ["perpetual", "irrevocable", "mutual", "reasonable"],
    "ip": ["perpetual", "irrevocable", "exclusive", "indemnify", "good faith"],
    "exclusivity": ["exclusive", "non-compete", "most favoured nation", "good faith", "sole discretion"],
    "general": ["sole discretion", "good faith", "without notice", "auto-renew"],
}
OPTIONAL_TYPES = ["indemnity", "termination", "payment", "confidentiality", "ip", "exclusivity"]

# Governing-law strings as counterparties write them (several spellings of the same jurisdiction).
GOVERNING_LAW = [
    "New York", "NY", "State of New York", "Delaware", "DE", "State of Delaware", "California", "CA",
    "England and Wales", "England & Wales", "English law", "UK", "Germany", "Federal Republic of Germany",
    "Singapore", "SG", "Republic of Singapore", "Ontario", "Province of Ontario", "Brazil", "India", "Japan",
]

COUNTERPARTIES = [
    "Halden Logistics", "Pemberly Foods", "Arcturus Analytics", "Tollund Medical", "Oriel Freight",
    "Brightwater Energy", "Kestrel Software", "Marlow Textiles", "Quorra Robotics", "Verity Payments",
    "Linden Health", "Sable Mining", "Northgate Retail", "Cobalt Telecom", "Fenwick Pharma",
    "Ironbridge Construction", "Mistral Aviation", "Zephyr Cloud",
]


def count_term(text: str, term: str) -> int:
    pattern = r"(?<![a-z0-9])" + re.escape(term) + r"(?![a-z0-9])"
    return len(re.findall(pattern, text.lower()))


def check_fragments() -> None:
    for ctype, sentences in FILLER.items():
        for s in sentences:
            hits = [t for t, _ in LEXICON if t in s.lower()]
            if hits:
                raise SystemExit(f"filler of {ctype} carries lexicon terms {hits}: {s}")
    for term, sentences in FRAGMENTS.items():
        for s in sentences:
            for other, _ in LEXICON:
                expected = 1 if other == term else 0
                if s.lower().count(other) != expected or count_term(s, other) != expected:
                    raise SystemExit(f"fragment for {term} has {other} a wrong number of times: {s}")


def make_clause(rng: random.Random, ctype: str) -> str:
    sentences = list(rng.sample(FILLER[ctype], 1))
    n_terms = rng.choice([0, 1, 2, 2, 3, 3, 4])
    for term in rng.sample(TYPE_TERMS[ctype], min(n_terms, len(TYPE_TERMS[ctype]))):
        repeats = 2 if rng.random() < 0.25 else 1
        sentences.extend(rng.sample(FRAGMENTS[term], repeats))
    rng.shuffle(sentences)
    return " ".join(sentences)


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent / "environment"
    out.mkdir(parents=True, exist_ok=True)
    check_fragments()
    rng = random.Random(SEED)

    laws = list(GOVERNING_LAW)
    rng.shuffle(laws)
    laws = laws[: len(COUNTERPARTIES) - 2] + ["DE", "UK"]
    contracts = []
    clauses = []
    for i, party in enumerate(COUNTERPARTIES):
        cid = f"C-{1001 + i}"
        month = 1 + rng.randrange(12)
        contracts.append((cid, party, laws[i], f"2025-{month:02d}-{1 + rng.randrange(28):02d}"))
        types = ["liability"] + rng.sample(OPTIONAL_TYPES, rng.randint(3, 5)) + ["general"]
        for n, ctype in enumerate(types, start=1):
            clauses.append({"contract_id": cid, "clause_no": n, "type": ctype, "text": make_clause(rng, ctype)})

    with open(out / "contracts.csv", "w", newline="\n") as f:
        f.write("contract_id,counterparty,governing_law,effective_date\n")
        for row in contracts:
            f.write(",".join(row) + "\n")
    with open(out / "clauses.jsonl", "w", newline="\n") as f:
        for clause in clauses:
            f.write(json.dumps(clause) + "\n")
    with open(out / "risk_lexicon.csv", "w", newline="\n") as f:
        f.write("term,weight\n")
        for term, weight in LEXICON:
            f.write(f"{term},{weight}\n")


if __name__ == "__main__":
    main()
