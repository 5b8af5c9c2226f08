// A verdict once its judge criteria are judged (on the host, after the verifier's worker): each
// judge's answer becomes its criterion's result, R and the score are computed again over every
// criterion (a criterion skipped by `kgate check` without the judge's key is left out), and a failed
// verdict's attribution adds the judges' evidence to the values'. A judge that gave no verdict never
// lets the verdict pass: it stays unverified.
import type { CriterionResult, Evidence, JudgeOutcome, Verdict } from "../record/index.ts";
import { attributeFrom } from "./attribution.ts";
import { failedReason, rewardAndScore } from "./rubric.ts";

/** The judge criteria still to judge. */
export function pendingJudgeCriteria(verdict: Verdict): CriterionResult[] {
  return verdict.criteria.filter((c) => c.judge?.verdict === "pending");
}

/** Characters of a judge's reason kept in a criterion's detail. */
const DETAIL_CAP = 500;

function judgedCriterion(c: CriterionResult, judge: JudgeOutcome): CriterionResult {
  const reason = judge.reason ? judge.reason.slice(0, DETAIL_CAP) : undefined;
  const detail =
    judge.verdict === "pass" || judge.verdict === "fail"
      ? reason
      : `${judge.verdict === "invalid" ? "the deliverable broke the judge" : `judge ${judge.verdict}`}${reason ? `: ${reason}` : ""}`;
  return { ...c, passed: judge.verdict === "pass", ...(detail ? { detail } : {}), judge };
}

/**
 * The judges' evidence per candidate, as a rubric's (rubricEvidence in verify.ts): each failed judge
 * criterion is one distinguishing item for every candidate; the output agrees with a candidate when it
 * met the criterion as that candidate states it (only asked where the candidate's text differs).
 */
function judgeEvidence(criteria: readonly CriterionResult[], into: Evidence): Evidence {
  for (const c of criteria) {
    const judge = c.judge;
    if (!judge || (judge.verdict !== "fail" && judge.verdict !== "invalid")) continue;
    for (const label of Object.keys(into)) {
      const before = into[label]!;
      into[label] = {
        discriminating: before.discriminating + 1,
        agreeing: before.agreeing + (judge.attribution?.[label] === true ? 1 : 0),
      };
    }
  }
  return into;
}

/** The verdict with `outcomes` (by criterion name) in place of its pending judge criteria. */
export function settleJudged(verdict: Verdict, outcomes: ReadonlyMap<string, JudgeOutcome>): Verdict {
  const criteria = verdict.criteria.map((c) => {
    const outcome = outcomes.get(c.name);
    return outcome && c.judge ? judgedCriterion(c, outcome) : c;
  });
  const counted = criteria.filter((c) => c.judge?.verdict !== "skipped");
  const { reward, score } = rewardAndScore(counted);
  const { agreement: _a, evidence: _e, reason: _r, attribution: _t, ...rest } = verdict;
  const unjudged = criteria.filter((c) => c.judge?.verdict === "pending" || c.judge?.verdict === "error");
  if (unjudged.length > 0) {
    const names = unjudged.map((c) => c.name).join(", ");
    return {
      ...rest,
      status: "unverified",
      reward: 0,
      score,
      criteria,
      attribution: null,
      reason: `no verdict from the judge of ${names}`,
    };
  }
  if (reward === 1) {
    const { diff: _d, ...passed } = rest;
    return { ...passed, status: "pass", reward, score, criteria, attribution: null };
  }
  if (verdict.attribution === "format") return { ...verdict, status: "fail", reward, score, criteria };
  const evidence = judgeEvidence(criteria, structuredClone(verdict.evidence ?? {}));
  const { attribution, agreement } = attributeFrom(evidence);
  return {
    ...rest,
    status: "fail",
    reward,
    score,
    criteria,
    attribution,
    agreement,
    reason: failedReason(counted),
  };
}

/** Failed judge criteria worth judging against the candidates (to attribute the failure). */
export function attributionNeeded(verdict: Verdict): CriterionResult[] {
  if (verdict.status !== "fail" || verdict.attribution === "format") return [];
  return verdict.criteria.filter(
    (c) =>
      c.judge?.verdict === "fail" &&
      Object.keys(c.judge.candidates ?? {}).length > 0 &&
      c.judge.attribution === undefined,
  );
}

/**
 * The verdict of the code criteria alone: every pending judge criterion skipped (left out of R) with
 * `reason`. What `kgate check`'s steps without a judge read (the judge-calibration step asks the judge).
 */
export function withoutJudges(verdict: Verdict, reason: string): Verdict {
  const pending = pendingJudgeCriteria(verdict);
  if (pending.length === 0) return verdict;
  return settleJudged(
    verdict,
    new Map(pending.map((c) => [c.name, { ...c.judge!, verdict: "skipped" as const, reason }])),
  );
}

/**
 * The judge criteria a code-only verdict could not decide for a candidate (`default-convention`,
 * `perturbed-convention:<name>`): skipped or pending ones whose text differs under it.
 */
export function leftToJudge(verdict: Verdict, label: string): string[] {
  return verdict.criteria
    .filter((c) => {
      const judge = c.judge;
      return (
        (judge?.verdict === "skipped" || judge?.verdict === "pending") &&
        judge.candidates?.[label] !== undefined
      );
    })
    .map((c) => c.name);
}

/**
 * A verdict computed where its judges cannot be asked (an exported task's container: no network, no
 * key): its pending judge criteria become judge errors, so the verdict is unverified, naming them and
 * `why`. Never a pass.
 */
export function judgesNotAsked(verdict: Verdict, why: string): Verdict {
  const pending = pendingJudgeCriteria(verdict);
  if (pending.length === 0) return verdict;
  const settled = settleJudged(
    verdict,
    new Map(pending.map((c) => [c.name, { ...c.judge!, verdict: "error" as const, reason: why }])),
  );
  return { ...settled, reason: `${settled.reason}: ${why}` };
}

/** Why an exported task's verifier leaves its judge criteria unjudged. */
export const JUDGES_NOT_EXPORTED =
  "a judge criterion is asked from kgate's host with the judge's key; an exported verifier has neither (the task's container has no network): judge these outputs with kgate";
