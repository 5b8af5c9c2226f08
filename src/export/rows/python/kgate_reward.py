"""kgate's reward for exported rows (standard library only, Python >= 3.9).

compute_score(data_source, solution_str, ground_truth, extra_info=None) is verl's reward function
signature; score(reply, ground_truth) returns the whole verdict. The ground truth is the row's
`reward_model.ground_truth`: a JSON object naming the task, the condition, the reference answer and
the reward scheme. A row whose answer only code can judge (rubric criteria) is scored by kgate's own
verification in node (kgate_verify.mjs beside this file; node >= 18 on PATH, or $KGATE_NODE).

Command line: `python3 kgate_reward.py < replies.jsonl` reads {"reply", "ground_truth"} lines and
prints one verdict line each, scoring them in one process (the rubric rows in one node process).
"""

import importlib.util
import json
import os
import re
import subprocess
import sys
import unicodedata

_HERE = os.path.dirname(os.path.abspath(__file__))


def _sibling(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(_HERE, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


compare = _sibling("kgate_compare")
_TWO_PART = re.compile(r"\b(NO|ANSWER|REQUEST)[" + re.escape(compare.JS_SPACE) + r"-]+(BET|DIRECTLY|SPEC)\b", re.ASCII)
_MAX_CHOICE_CHARS = 200
CHOICES = ("ANSWER_DIRECTLY", "REQUEST_SPEC", "DECLINE")


def parse_choice(reply):
    """The one word of a choice reply, read as kgate reads the prospective choice; else None."""
    if compare.utf16_len(reply) > _MAX_CHOICE_CHARS:
        return None
    text = _TWO_PART.sub(r"\1_\2", reply.upper())

    def edge(ch):
        return ch in compare.JS_SPACE or unicodedata.category(ch)[0] in "PS"

    start, end = 0, len(text)
    while start < end and edge(text[start]):
        start += 1
    while end > start and edge(text[end - 1]):
        end -= 1
    return text[start:end] if text[start:end] in CHOICES else None


_TRUTHS = {}


def _ground_truth(value):
    """The parsed ground truth (the same row's string parsed once), with a cache of its reference tables."""
    if not isinstance(value, (str, bytes)):
        return dict(value, tables={})
    if value not in _TRUTHS:
        if len(_TRUTHS) > 4096:
            _TRUTHS.clear()
        _TRUTHS[value] = dict(json.loads(value), tables={})
    return _TRUTHS[value]


def _reference(truth, output):
    path = output["path"]
    if path not in truth["tables"]:
        truth["tables"][path] = compare.answer_table(output, truth["answers"][path])
    return truth["tables"][path]


def verify(reply, truth):
    """kgate's verdict on the reply's outputs: passed, partial score, criteria, reason."""
    found = compare.reply_outputs(truth["outputs"], reply)
    criteria, reasons = [], []
    for output in truth["outputs"]:
        path = output["path"]
        try:
            text = found[path]
            if isinstance(text, compare.Problem):
                raise text
            expected = _reference(truth, output)
            compared, differing = compare.compare_tables(expected, compare.output_table(output, text))
            detail = "%d of %d value(s) differ" % (differing, compared)
            criteria.append({"name": path, "passed": differing == 0, "weight": 1, "detail": detail})
        except compare.Problem as problem:
            reasons.append("%s %s" % (path, problem))
            criteria.append({"name": path, "passed": False, "weight": 1, "detail": str(problem)})
    total = sum(c["weight"] for c in criteria)
    partial = sum(c["weight"] for c in criteria if c["passed"]) / total if total else 0.0
    passed = bool(criteria) and all(c["passed"] for c in criteria)
    failed = [c["name"] for c in criteria if not c["passed"]]
    reason = "; ".join(reasons) or ("%d of %d criteria failed: %s" % (len(failed), len(criteria), ", ".join(failed)) if failed else None)
    return {"passed": passed, "partial": partial, "criteria": criteria, "reason": reason}


def node_verify(items):
    """kgate's own verification in node for [(reply, truth)], one process for all of them."""
    if not items:
        return []
    plain = [{k: v for k, v in t.items() if k != "tables"} for _, t in items]
    lines = "".join(json.dumps({"reply": r, "ground_truth": t}) + "\n" for (r, _), t in zip(items, plain))
    command = [os.environ.get("KGATE_NODE", "node"), os.path.join(_HERE, "kgate_verify.mjs")]
    done = subprocess.run(command, input=lines.encode("utf-8"), stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
    if done.returncode != 0:
        raise RuntimeError("kgate_verify.mjs failed (%d): %s" % (done.returncode, done.stderr.decode("utf-8", "replace")[-2000:]))
    return [json.loads(line) for line in done.stdout.decode("utf-8").splitlines() if line.strip()]


def reward(truth, choice, verdict):
    """The row's reward: binary (the verdict), or ignorance-aware (the payoff of the choice)."""
    scheme = truth["reward"]
    if scheme["scheme"] == "binary":
        return 1.0 if verdict["passed"] else 0.0
    schedule = scheme["schedule"]
    if choice == "DECLINE":
        return float(schedule["decline"])
    if choice == "REQUEST_SPEC":
        return float(schedule["withSpec"]["wrong" if scheme["specGiven"] else "correct"])
    return float(schedule["direct"]["correct" if verdict["passed"] else "wrong"])


def _choice_of(truth, reply):
    if truth["reward"]["scheme"] != "ignorance-aware":
        return None
    choice = parse_choice(reply)
    return choice if choice in ("REQUEST_SPEC", "DECLINE") else None


_NO_ANSWER = {"passed": False, "partial": 0.0, "criteria": [], "reason": "no answer: the reply chose %s"}


def score_many(pairs):
    """score() of each (reply, ground_truth), the rubric rows verified in one node process."""
    truths = [_ground_truth(t) for _, t in pairs]
    choices = [_choice_of(t, r) for (r, _), t in zip(pairs, truths)]
    verdicts = [None] * len(pairs)
    in_node = [i for i, t in enumerate(truths) if t["scorer"] == "node" and choices[i] is None]
    for i, verdict in zip(in_node, node_verify([(pairs[i][0], truths[i]) for i in in_node])):
        verdicts[i] = verdict
    results = []
    for i, ((reply, _), truth) in enumerate(zip(pairs, truths)):
        if choices[i] is not None:
            verdict = dict(_NO_ANSWER, reason=_NO_ANSWER["reason"] % choices[i])
        else:
            verdict = verdicts[i] or verify(reply, truth)
        results.append(dict(verdict, score=reward(truth, choices[i], verdict), choice=choices[i] or "ANSWER", task=truth["task"], condition=truth["condition"]))
    return results


def score(reply, ground_truth):
    """The verdict on one reply: score (the reward), passed, partial, choice, criteria, reason."""
    return score_many([(reply, ground_truth)])[0]


def compute_score(data_source, solution_str, ground_truth, extra_info=None):
    """verl's reward function: the reward as `score`, with the verdict's figures beside it."""
    result = score(solution_str, ground_truth)
    return {
        "score": result["score"],
        "passed": 1.0 if result["passed"] else 0.0,
        "partial": result["partial"],
        "requested_spec": 1.0 if result["choice"] == "REQUEST_SPEC" else 0.0,
        "declined": 1.0 if result["choice"] == "DECLINE" else 0.0,
    }


def main():
    pairs = []
    for line in sys.stdin:
        if line.strip():
            item = json.loads(line)
            pairs.append((item["reply"], item["ground_truth"]))
    for result in score_many(pairs):
        sys.stdout.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    main()
