#!/usr/bin/env python3
# Generates the environment of legal-clause (contracts under several laws, their clauses as text, and
# a shared keyword list with severities), deterministically. Every contract, clause and party is
# synthetic; the texts are assembled from the sentences below.
# Usage: python3 tasks/legal-clause/generate.py [out_dir]   (default: environment/ beside this file)
import csv
import io
import random
import re
import sys
from pathlib import Path

SEED = 3303

# keyword -> (severity, two sentences that use it once each)
KEYWORDS = {
    "unlimited liability": ("critical", [
        "The Supplier accepts unlimited liability for any breach of its obligations.",
        "No exclusion applies here, so the Supplier bears unlimited liability for data loss."]),
    "consequential loss": ("critical", [
        "The Customer may recover consequential loss arising from late delivery.",
        "Loss of profit is treated as consequential loss and is recoverable in full."]),
    "sole discretion": ("critical", [
        "The Customer may withhold approval at its sole discretion.",
        "Any extension is granted at the sole discretion of the Customer."]),
    "irrevocable": ("critical", [
        "The licence granted in this clause is irrevocable.",
        "The Supplier gives an irrevocable consent to inspections of its premises."]),
    "indemnify": ("high", [
        "The Supplier shall indemnify the Customer against all third-party claims.",
        "The Supplier will indemnify the Customer for regulatory fines."]),
    "liquidated damages": ("high", [
        "Late milestones incur liquidated damages of a fixed daily amount.",
        "The parties agree that liquidated damages are not the only remedy."]),
    "exclusive": ("high", [
        "The Supplier grants the Customer exclusive rights in the territory.",
        "The Customer is the exclusive distributor of the products."]),
    "non-compete": ("high", [
        "A non-compete obligation binds the Supplier for two years after expiry.",
        "The Supplier accepts a non-compete restriction across the region."]),
    "without notice": ("high", [
        "The Customer may suspend the services without notice.",
        "Prices may be changed without notice to the Supplier."]),
    "penalty": ("high", [
        "A penalty is charged for every late report.",
        "Any breach of the service levels triggers a penalty payment."]),
    "auto-renew": ("medium", [
        "This Agreement shall auto-renew for successive yearly terms.",
        "Unless cancelled, each order will auto-renew every year."]),
    "assignment": ("medium", [
        "Assignment of this Agreement by the Customer needs no consent.",
        "The Supplier may not refuse an assignment to an affiliate of the Customer."]),
    "perpetual": ("medium", [
        "The confidentiality obligations are perpetual.",
        "The Customer receives a perpetual right to use the deliverables."]),
    "most favoured nation": ("medium", [
        "The Supplier gives most favoured nation pricing to the Customer.",
        "A most favoured nation rule applies to all future price lists."]),
    "audit rights": ("medium", [
        "The Customer has audit rights over the records of the Supplier.",
        "Audit rights extend to every site used for the services."]),
    "set-off": ("medium", [
        "The Customer may apply set-off against any amount it owes.",
        "Set-off is permitted for disputed invoices."]),
    "reasonable efforts": ("low", [
        "The Supplier shall use reasonable efforts to meet the delivery dates.",
        "Each party uses reasonable efforts to limit its own costs."]),
    "notice period": ("low", [
        "Either party may terminate with a notice period of ninety days.",
        "The notice period starts on the day of receipt."]),
    "survive": ("low", [
        "The payment terms shall survive termination.",
        "Accrued rights survive the end of this Agreement."]),
    "subcontract": ("low", [
        "The Supplier may subcontract any part of the services.",
        "The Supplier shall not subcontract without approval."]),
}
FILLER = [
    "Each party bears its own costs.",
    "Headings are for convenience only.",
    "Invoices are payable within thirty days.",
    "All communications are made in writing.",
    "The parties meet every quarter to review performance.",
    "Definitions in the schedule apply to this clause.",
    "Records are kept for the statutory period.",
    "The Customer appoints a single point of contact.",
    "Amendments take effect when signed by both parties.",
    "Service credits are listed in the schedule.",
]
# Keywords a clause of each category tends to use; any keyword can appear anywhere.
LEANING = {
    "liability": ["unlimited liability", "consequential loss", "penalty", "liquidated damages"],
    "indemnity": ["indemnify", "unlimited liability", "survive", "without notice"],
    "data_protection": ["audit rights", "perpetual", "subcontract", "without notice"],
    "ip": ["irrevocable", "perpetual", "exclusive", "assignment"],
    "non_compete": ["non-compete", "exclusive", "sole discretion", "most favoured nation"],
    "termination": ["auto-renew", "notice period", "without notice", "sole discretion"],
    "confidentiality": ["perpetual", "survive", "reasonable efforts", "irrevocable"],
    "payment": ["set-off", "penalty", "most favoured nation", "liquidated damages"],
    "general": ["assignment", "reasonable efforts", "subcontract", "notice period"],
}
JURISDICTIONS = ["New York", "Delaware", "England and Wales", "Ireland", "Netherlands", "Singapore",
                 "Ontario", "Brazil", "Japan", "South Africa"]
CONTRACTS = 20


def hits(keyword: str, text: str) -> int:
    return len(re.findall(r"(?<![\w-])" + re.escape(keyword) + r"(?![\w-])", text, flags=re.IGNORECASE))


def clause_text(rng: random.Random, category: str) -> str:
    sentences = rng.sample(FILLER, rng.randint(1, 2))
    for _ in range(rng.choice([1, 1, 2, 2, 3])):
        keyword = rng.choice(LEANING[category]) if rng.random() < 0.7 else rng.choice(sorted(KEYWORDS))
        sentences.append(rng.choice(KEYWORDS[keyword][1]))
        for _ in range(rng.choice([0] * 10 + [1, 1, 3])):  # drafted again: the same term repeated
            sentences.append(rng.choice(KEYWORDS[keyword][1]))
    rng.shuffle(sentences)
    text = " ".join(sentences)
    for keyword in KEYWORDS:  # no keyword hides inside a longer word: a plain count finds every hit
        assert hits(keyword, text) == text.lower().count(keyword), (keyword, text)
    return text


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent / "environment"
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(SEED)
    contracts, clauses = [], []
    laws = JURISDICTIONS + [rng.choice(JURISDICTIONS) for _ in range(CONTRACTS - len(JURISDICTIONS))]
    rng.shuffle(laws)
    for n, law in enumerate(laws):
        contract_id = f"LC-{3100 + 13 * n}"
        contracts.append([contract_id, law, f"2025-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"])
        categories = rng.sample(sorted(LEANING), rng.randint(2, 6))
        categories += rng.sample(categories, rng.randint(1, 2))  # a category twice in one contract
        for i, category in enumerate(sorted(categories, key=sorted(LEANING).index), start=1):
            clauses.append([contract_id, f"{contract_id}-C{i}", category, clause_text(rng, category)])

    def write(name: str, header: list, rows: list) -> None:
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
        (out / name).write_text(buffer.getvalue(), encoding="utf-8")

    write("contracts.csv", ["contract_id", "jurisdiction", "signed_on"], contracts)
    write("clauses.csv", ["contract_id", "clause_id", "category", "text"], clauses)
    write("keywords.csv", ["keyword", "severity"], [[k, s] for k, (s, _) in KEYWORDS.items()])


if __name__ == "__main__":
    main()
