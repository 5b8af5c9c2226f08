"""Oracle for clinical-variant, written independently of the TypeScript reference.

It reads the gene reference table, the evidence points, the class thresholds and the conflict
tie-break from the curation standard placed in the sandbox (its tables and lists, or the one-line
short form), so placed over a variant it computes that variant's answer; without it, it stops.
The Python standard library only. Writes output/classifications.csv.
"""
import csv
import os
import re
import sys

SPEC = os.environ.get("KGATE_ARTEFACT_PATH", "docs/curation/variant-classification.md")
NULL = {"nonsense", "frameshift", "splice_donor", "splice_acceptor"}


def fail(message):
    sys.exit(f"oracle: {message}")


def find(pattern, text, what):
    m = re.search(pattern, text)
    if not m:
        fail(f"cannot read {what} from the specification")
    return m


def read_spec():
    if not os.path.exists(SPEC):
        fail(f"{SPEC} is not present (the oracle runs with the specification)")
    raw = open(SPEC, encoding="utf-8").read()
    text = re.sub(r"\s+", " ", raw.replace("**", "").replace("`", "").replace("|", " "))
    genes = {}
    for gene, mechanism, bs1, ba1, hotspot in re.findall(
        r"\b([A-Z]{3,5}\d) (LoF|GoF) (\d+(?:\.\d+)?) (\d+(?:\.\d+)?) (\d+-\d+|none)\b", text
    ):
        lo_hi = tuple(int(x) for x in hotspot.split("-")) if hotspot != "none" else None
        genes[gene] = {"lof": mechanism == "LoF", "bs1": float(bs1), "ba1": float(ba1), "hotspot": lo_hi}
    if not genes:
        fail("cannot read the gene reference table")
    rarity = find(r"PM2: (?:a )?pop_af at or below (\d+(?:\.\d+)?)[^:]*: \+(\d+)", text, "the PM2 rule")
    conflict = re.search(r"pathogenic points at least (\d+) and benign points at most (-\d+)", text)
    number = lambda pattern, what: int(find(pattern, text, what).group(1))
    score = lambda pattern, what: float(find(pattern, text, what).group(1))
    return {
        "genes": genes,
        "pm2_max": float(rarity.group(1)),
        "pm2": int(rarity.group(2)),
        "null": number(r"splice_acceptor \+(\d+)", "the null-variant points"),
        "start_lost": number(r"start_lost \+(\d+)", "the start_lost points"),
        "gof": number(r"[Ii]n a GoF gene a null variant[^.]*? earns (\d+) points?", "the GoF rule"),
        "strong": score(r"insilico >= (\d\.\d+)[^:;]*: \+2", "the +2 in silico band"),
        "supporting": score(r"insilico >= (\d\.\d+)[^:;]*: \+1", "the +1 in silico band"),
        "benign_score": score(r"insilico <= (\d\.\d+)[^:;]*: -1", "the -1 in silico band"),
        "confirmed": number(r"de_novo confirmed[^:+]*:? \+(\d+)", "the confirmed de novo points"),
        "assumed": number(r"de_novo assumed[^:+]*:? \+(\d+)", "the assumed de novo points"),
        "P": number(r"(?<![_a-z])pathogenic: total >= (-?\d+)", "the pathogenic threshold"),
        "LP": number(r"likely_pathogenic: total >= (-?\d+)", "the likely pathogenic threshold"),
        "LB": number(r"likely_benign: total <= (-?\d+)", "the likely benign threshold"),
        "B": number(r"(?<![_a-z])benign: total <= (-?\d+)", "the benign threshold"),
        "conflict": (int(conflict.group(1)), int(conflict.group(2))) if conflict else None,
    }


def points_of(v, gene, spec):
    """The points of each criterion that applies, and whether BA1 applies."""
    pts = []
    af = float(v["pop_af"])
    ba1 = af > gene["ba1"]
    if not ba1:
        if af > gene["bs1"]:
            pts.append(-4)
        elif af <= spec["pm2_max"]:
            pts.append(spec["pm2"])
    consequence = v["consequence"]
    if consequence in NULL or consequence == "start_lost":
        if not gene["lof"]:
            pts.append(spec["gof"])
        else:
            pts.append(spec["start_lost"] if consequence == "start_lost" else spec["null"])
    hotspot = gene["hotspot"]
    if consequence == "missense" and hotspot and hotspot[0] <= int(v["codon"]) <= hotspot[1]:
        pts.append(2)
    if consequence in ("missense", "inframe_deletion"):
        s = float(v["insilico"])
        if s >= spec["strong"]:
            pts.append(2)
        elif s >= spec["supporting"]:
            pts.append(1)
        elif s <= spec["benign_score"]:
            pts.append(-1)
    if consequence == "synonymous":
        pts.append(-1)
    pts.append({"confirmed": spec["confirmed"], "assumed": spec["assumed"]}.get(v["de_novo"], 0))
    pts.append({"damaging": 4, "normal": -4}.get(v["functional"], 0))
    return pts, ba1


def class_of(pts, ba1, spec):
    total = sum(pts)
    for_pathogenic = sum(p for p in pts if p > 0)
    for_benign = sum(p for p in pts if p < 0)
    if spec["conflict"]:
        at_least, at_most = spec["conflict"]
        if for_pathogenic >= at_least and (ba1 or for_benign <= at_most):
            return "uncertain_significance"
    if ba1:
        return "benign"
    if total >= spec["P"]:
        return "pathogenic"
    if total >= spec["LP"]:
        return "likely_pathogenic"
    if total <= spec["B"]:
        return "benign"
    if total <= spec["LB"]:
        return "likely_benign"
    return "uncertain_significance"


def main():
    spec = read_spec()
    with open("variants.csv", newline="") as f:
        variants = list(csv.DictReader(f))
    os.makedirs("output", exist_ok=True)
    with open("output/classifications.csv", "w", newline="") as f:
        out = csv.writer(f, lineterminator="\n")
        out.writerow(["variant_id", "points", "classification"])
        for v in variants:
            gene = spec["genes"].get(v["gene"])
            if gene is None:
                fail(f"{v['variant_id']}: gene {v['gene']} is not in the gene reference table")
            pts, ba1 = points_of(v, gene, spec)
            out.writerow([v["variant_id"], sum(pts), class_of(pts, ba1, spec)])


if __name__ == "__main__":
    main()
