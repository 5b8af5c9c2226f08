"""Oracle for dependency-audit, written independently of the TypeScript reference.

It reads the engine's semantics from the specification placed in the sandbox (full or short form):
what a comma means, partial versions, the caret on 0.x and the hyphen's upper bound must read as
DPE-3 states them; the pre-release rule, the decision order and the dev scope are read as either
wording (DPE-3's or the perturbed variant's), so placed over that variant it computes the variant's
answer. Without the specification it stops. Each range token is evaluated directly as a predicate
on version sort keys (no comparator sets). The Python standard library only. Writes output/audit.csv.
"""
import csv
import json
import os
import re
import sys

SPEC = os.environ.get("KGATE_ARTEFACT_PATH", "docs/platform/dependency-policy-engine.md")


def fail(message):
    sys.exit(f"oracle: {message}")


def read_spec():
    if not os.path.exists(SPEC):
        fail(f"{SPEC} is not present (the oracle runs with the specification)")
    text = re.sub(r"\s+", " ", open(SPEC, encoding="utf-8").read().replace("**", "").replace("`", ""))

    def choose(what, options):
        for value, pattern in options:
            if re.search(pattern, text):
                return value
        fail(f"cannot read {what} from the specification")

    for what, pattern in [("the comma", r"comma separates alternatives"),
                          ("partial versions", r"partial version is padded with zeros"),
                          ("the caret", r"for every major, 0 included"),
                          ("hyphen ranges", r"upper bound is excluded")]:
        choose(what, [(True, pattern)])
    return {
        "prerelease": choose("pre-releases", [("precedence", r"pre-release version is an ordinary version"),
                                              ("exact", r"pre-release version is never matched by a range")]),
        "order": choose("the decision order", [(["ban", "deny", "exception"], r"exception never overrides a denied"),
                                               (["exception", "ban", "deny"], r"exception overrides bans and licences")]),
        "dev": choose("dev scope", [("skip-licence", r"licence is not evaluated"), ("exempt", r"exempt from the policy")]),
    }


SEMANTICS = read_spec()


def key(text):
    """The sort key of a version (a partial one padded with zeros): releases after their pre-releases,
    numeric identifiers before alphanumeric ones."""
    core, _, pre = text.split("+")[0].partition("-")
    nums = [int(n) for n in core.split(".")] + [0, 0]
    ids = tuple((0, int(x), "") if x.isdigit() else (1, 0, x) for x in pre.split(".")) if pre else None
    return tuple(nums[:3]), (0, ids) if ids else (1,)


def release(major, minor=0, patch=0):
    return (major, minor, patch), (1,)


def token_test(token):
    """A predicate on version keys for one token of a range."""
    if token in ("*", "x"):
        return lambda k: True
    op, text = re.fullmatch(r"(\^|~|>=|<=|>|<|=)?(.+)", token).groups()
    core = text.split("-")[0].split(".")
    if len(core) > 1 and core[-1] in ("x", "*"):  # 5.1.x, 2.*: everything the wildcard leaves open
        major = int(core[0])
        if len(core) == 2:
            return lambda k: release(major) <= k < release(major + 1)
        return lambda k: release(major, int(core[1])) <= k < release(major, int(core[1]) + 1)
    low = key(text)
    if op == "^":
        return lambda k: low <= k < release(low[0][0] + 1)
    if op == "~":
        hi = release(low[0][0] + 1) if len(core) == 1 else release(low[0][0], low[0][1] + 1)
        return lambda k: low <= k < hi
    return {None: lambda k: k == low, "=": lambda k: k == low, ">": lambda k: k > low,
            ">=": lambda k: k >= low, "<": lambda k: k < low, "<=": lambda k: k <= low}[op]


def alternative_matches(part, k):
    tokens, tests, pins = part.split(), [], []
    i = 0
    while i < len(tokens):
        if i + 1 < len(tokens) and tokens[i + 1] == "-":  # A - B, the upper bound excluded
            lo, hi = key(tokens[i]), key(tokens[i + 2])
            tests.append(lambda v, lo=lo, hi=hi: lo <= v < hi)
            i += 3
            continue
        tests.append(token_test(tokens[i]))
        if re.fullmatch(r"=?\d+\.\d+\.\d+-\S+", tokens[i]):
            pins.append(key(tokens[i].lstrip("=")))
        i += 1
    if not all(t(k) for t in tests):
        return False
    return k[1] == (1,) or SEMANTICS["prerelease"] == "precedence" or k in pins


def matches(range_list, version):
    k = key(version)
    return any(alternative_matches(part, k) for part in range_list.split(","))


def licence_id(text):
    i = text.strip().lower()
    if i.endswith("+"):
        return i[:-1] + "-or-later"
    return i + "-only" if re.fullmatch(r"(a|l)?gpl-\d\.\d", i) else i


RANK = {"deny": 0, "unlisted": 1, "allow": 2}


def licence(text, lists):
    """An SPDX expression by recursive descent: alternatives (OR) of conjunctions (AND) of ids or groups."""
    tokens = re.findall(r"\(|\)|[^\s()]+", text) or ["NOASSERTION"]
    pos = [0]

    def atom():
        t = tokens[pos[0]]
        pos[0] += 1
        if t == "(":
            v = alternatives()
            pos[0] += 1
            return v
        return lists.get(licence_id(t), "unlisted")

    def conjunction():
        v = atom()
        while pos[0] < len(tokens) and tokens[pos[0]] == "AND":
            pos[0] += 1
            v = min(v, atom(), key=RANK.get)
        return v

    def alternatives():
        v = conjunction()
        while pos[0] < len(tokens) and tokens[pos[0]] == "OR":
            pos[0] += 1
            v = max(v, conjunction(), key=RANK.get)
        return v

    return alternatives()


def decide(p, bans, exceptions, lists):
    name, version, dev = p["name"], p["version"], p["scope"] == "dev"
    if dev and SEMANTICS["dev"] == "exempt":
        return "allow", "dev-only"
    lic = None if dev else licence(p["licence"], lists)
    exception = next((v for n, v, r in exceptions if n == name and matches(r, version)), None)
    steps = {
        "ban": ("deny", "banned") if any(n == name and matches(r, version) for n, r in bans) else None,
        "deny": ("deny", "licence-denied") if lic == "deny" else None,
        "exception": (exception, "exception") if exception else None,
    }
    for step in SEMANTICS["order"]:
        if steps[step]:
            return steps[step]
    if lic is None:
        return "allow", "dev-only"
    return ("allow", "licence-allowed") if lic == "allow" else ("review", "unlisted")


def main():
    bans, exceptions, lists = [], [], {}
    for line in open("policy.txt", encoding="utf-8"):
        words = line.split("#")[0].split()
        if not words:
            continue
        if words[0] == "ban":
            bans.append((words[2], " ".join(words[3:])))
        elif words[0] == "exception":
            exceptions.append((words[2], words[3], " ".join(words[4:])))
        else:
            lists[licence_id(words[2])] = words[0]
    packages = json.load(open("packages.lock.json", encoding="utf-8"))["packages"]
    os.makedirs("output", exist_ok=True)
    with open("output/audit.csv", "w", newline="") as f:
        out = csv.writer(f, lineterminator="\n")
        out.writerow(["package", "version", "verdict", "rule"])
        for p in packages:
            out.writerow([p["name"], p["version"], *decide(p, bans, exceptions, lists)])


if __name__ == "__main__":
    main()
