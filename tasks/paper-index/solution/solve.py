"""Oracle for paper-index: CI-2 betweenness, written independently of the TypeScript reference.

Instead of Brandes' accumulation it counts shortest paths directly: v lies on a shortest s-t path
exactly when dist(s, v) + dist(v, t) = dist(s, t), and then carries sigma_sv * sigma_vt / sigma_st
of the pair. It reads the graph direction and the normalisation from the specification placed in
the sandbox (so placed over a variant it computes that variant's answer; without it, it stops).
Exact fractions; the Python standard library only. Writes output/centrality.json.
"""
import csv
import json
import os
import re
import sys
from collections import deque
from fractions import Fraction

SPEC = "docs/index/citation-centrality.md"


def fail(message):
    sys.exit(f"oracle: {message}")


def read_spec():
    if not os.path.exists(SPEC):
        fail(f"{SPEC} is not present (the oracle runs with the specification)")
    text = re.sub(r"\s+", " ", open(SPEC, encoding="utf-8").read()).replace("*", "")
    direction = re.search(r"\b(directed|undirected)(?:,| link)", text)
    formula = re.search(r"B\(v\) / \(\(n - 1\) ?x? ?\(n - 2\)( / 2)?\)", text)
    decimals = re.search(r"rounded to (\d+) decimals", text)
    if not (direction and formula and decimals and "weakly connected component" in text):
        fail("cannot read the link direction, the normalisation or the reporting precision")
    return {
        "directed": direction.group(1) == "directed",
        "unordered": formula.group(1) is not None,
        "decimals": int(decimals.group(1)),
    }


spec = read_spec()

with open("papers.csv", newline="") as f:
    papers = [row["paper_id"] for row in csv.DictReader(f)]
known = set(papers)
links = {p: set() for p in papers}
with open("citations.csv", newline="") as f:
    for row in csv.DictReader(f):
        citing, cited = row["citing"], row["cited"]
        if citing != cited and citing in known and cited in known:
            links[citing].add(cited)
            if not spec["directed"]:
                links[cited].add(citing)


def shortest_paths(source):
    """Distance and number of shortest paths (along the links) from source to every reachable paper."""
    dist, count = {source: 0}, {source: 1}
    queue = deque([source])
    while queue:
        v = queue.popleft()
        for w in sorted(links[v]):
            if w not in dist:
                dist[w] = dist[v] + 1
                count[w] = 0
                queue.append(w)
            if dist[w] == dist[v] + 1:
                count[w] += count[v]
    return dist, count


paths = {s: shortest_paths(s) for s in papers}
raw = {v: Fraction(0) for v in papers}
for s in papers:
    dist_s, count_s = paths[s]
    for t, d_st in dist_s.items():
        if t == s:
            continue
        for v, d_sv in dist_s.items():
            if v in (s, t):
                continue
            dist_v, count_v = paths[v]
            if t in dist_v and d_sv + dist_v[t] == d_st:
                raw[v] += Fraction(count_s[v] * count_v[t], count_s[t])

# Fields: weakly connected components (link direction ignored).
neighbours = {p: set(links[p]) for p in papers}
for p in papers:
    for q in links[p]:
        neighbours[q].add(p)
field_size = {}
for p in papers:
    if p in field_size:
        continue
    members, queue = {p}, deque([p])
    while queue:
        for q in neighbours[queue.popleft()]:
            if q not in members:
                members.add(q)
                queue.append(q)
    for q in members:
        field_size[q] = len(members)

result = []
for p in papers:
    n = field_size[p]
    # Summing over ordered (s, t) counts each pair of an undirected graph from both ends.
    value = raw[p] if spec["directed"] else raw[p] / 2
    pairs = (n - 1) * (n - 2) // (2 if spec["unordered"] else 1)
    score = value / pairs if pairs > 0 else Fraction(0)
    result.append({"paper_id": p, "betweenness": round(float(score), spec["decimals"])})

os.makedirs("output", exist_ok=True)
with open("output/centrality.json", "w") as out:
    json.dump({"papers": result}, out, indent=1)
