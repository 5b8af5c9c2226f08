// The retain rule: each clause's verdict from its cell's passes out of valid runs, and the task's
// decision (retain / revise / discard, or incomplete while planned trials are missing) with reasons.
// Fixed n (the paper's protocol): a clause is met by the point estimate; it is borderline when one
// trial going the other way would flip it (not at a threshold of 0 or 1, which can only be met at
// one extreme). Sequential: the SPRT of sequential.ts decides each clause or leaves it undecided.
import { clauseText, isExtreme, type Requirement, satisfies } from "./requirement.ts";
import { type SprtSettings, sprt } from "./sequential.ts";

export interface ClauseInput {
  /** The cell's label, e.g. `frontier+A` or `control`. */
  cell: string;
  requirement: Requirement;
  control: boolean;
  passes: number;
  /** Valid runs: passes + fails (infrastructure errors and unverified trials excluded). */
  runs: number;
  /** Trials left out of the rate, for the words. */
  excluded: number;
}

export type ClauseVerdict = "met" | "not-met" | "undecided";

export interface ClauseResult {
  cell: string;
  requirement: Requirement;
  control: boolean;
  text: string;
  passes: number;
  runs: number;
  verdict: ClauseVerdict;
  /** Fixed n: one trial would flip the verdict. Sequential: undecided at the cap. */
  borderline: boolean;
  reason: string;
}

export type Decision = "retain" | "revise" | "discard" | "incomplete";

const pct = (passes: number, runs: number) => `${Math.round((100 * passes) / runs)}%`;
const tally = (c: ClauseInput) => `${c.passes}/${c.runs}${c.runs > 0 ? ` (${pct(c.passes, c.runs)})` : ""}`;

function noValidRun(c: ClauseInput, text: string): ClauseResult {
  const why =
    c.excluded > 0
      ? `${c.excluded} trial(s) excluded as infrastructure errors or unverified`
      : "no trial yet";
  return {
    ...base(c, text),
    verdict: "undecided",
    borderline: true,
    reason: `${c.cell} has no valid trial (${why}): ${text} cannot be decided`,
  };
}

function base(c: ClauseInput, text: string) {
  return {
    cell: c.cell,
    requirement: c.requirement,
    control: c.control,
    text,
    passes: c.passes,
    runs: c.runs,
  };
}

/** The paper's rule on a fixed sample: point estimate, borderline when one trial would flip it. */
export function fixedClause(c: ClauseInput): ClauseResult {
  const text = clauseText(c.cell, c.requirement);
  if (c.runs === 0) return noValidRun(c, text);
  const met = satisfies(c.requirement, c.passes, c.runs);
  const up = c.requirement.op === ">=" ? 1 : -1; // the direction that helps the clause
  if (met) {
    const worse = c.passes - up;
    const fragile =
      !isExtreme(c.requirement) && worse >= 0 && worse <= c.runs && !satisfies(c.requirement, worse, c.runs);
    const reason = fragile
      ? `${c.cell} passed ${tally(c)}: meets ${text} only by one trial (${worse}/${c.runs} would not)`
      : `${c.cell} passed ${tally(c)}: meets ${text}`;
    return { ...base(c, text), verdict: "met", borderline: fragile, reason };
  }
  const better = c.passes + up;
  const close = better >= 0 && better <= c.runs && satisfies(c.requirement, better, c.runs);
  const reason = close
    ? `${c.cell} passed ${tally(c)}: misses ${text} by one trial (${better}/${c.runs} would meet it)`
    : `${c.cell} passed ${tally(c)}: misses ${text}`;
  return { ...base(c, text), verdict: "not-met", borderline: close, reason };
}

/** Sequential screening: the SPRT decides, or the clause stays undecided (borderline once capped). */
export function sequentialClause(c: ClauseInput, s: SprtSettings, cap: number): ClauseResult {
  const text = clauseText(c.cell, c.requirement);
  if (c.runs === 0) return noValidRun(c, text);
  const status = sprt(c.requirement, c.passes, c.runs, s);
  const confidence = `${Math.round((1 - Math.max(s.alpha, s.beta)) * 1000) / 10}%`;
  if (status.verdict === "undecided") {
    const capped = c.runs >= cap;
    const reason = capped
      ? `${c.cell} passed ${tally(c)}: ${text} still undecided at the cap of ${cap} trials`
      : `${c.cell} passed ${tally(c)}: ${text} not yet decided at ${confidence}`;
    return { ...base(c, text), verdict: "undecided", borderline: capped, reason };
  }
  const word = status.verdict === "met" ? "meets" : "misses";
  return {
    ...base(c, text),
    verdict: status.verdict,
    borderline: false,
    reason: `${c.cell} passed ${tally(c)}: ${word} ${text} (SPRT, ${confidence})`,
  };
}

/** Worded outcome of a control: it must fail like -A. */
function controlReason(r: ClauseResult): string {
  if (r.verdict === "met") return `${r.reason}, so success tracks the artefact's content, not its presence`;
  if (r.verdict === "not-met")
    return `${r.reason}: the perturbed artefact still passes, so success does not track its content`;
  return r.reason;
}

export interface DecisionResult {
  decision: Decision;
  reasons: string[];
}

/**
 * Discard when a rule clause is clearly missed; incomplete while trials are missing; revise when a
 * rule clause is borderline or undecided or a control is not met; retain otherwise.
 */
export function decide(results: ClauseResult[], pending: string | null): DecisionResult {
  const rule = results.filter((r) => !r.control);
  const controls = results.filter((r) => r.control);
  const missed = rule.filter((r) => r.verdict === "not-met" && !r.borderline);
  if (missed.length > 0) return { decision: "discard", reasons: missed.map((r) => r.reason) };
  if (pending) return { decision: "incomplete", reasons: [pending] };
  const shaky = rule.filter((r) => r.borderline || r.verdict !== "met");
  const failedControls = controls.filter((r) => r.verdict !== "met" || r.borderline);
  if (shaky.length > 0 || failedControls.length > 0) {
    return {
      decision: "revise",
      reasons: [...shaky.map((r) => `borderline: ${r.reason}`), ...failedControls.map(controlReason)],
    };
  }
  return { decision: "retain", reasons: [...rule.map((r) => r.reason), ...controls.map(controlReason)] };
}
