// The retain rule: each clause's verdict from its cell's passes out of valid runs, and the task's
// decision (retain / revise / discard, or incomplete while evidence is missing) with reasons.
// Fixed n (the paper's protocol): a clause is met by the point estimate (3/5 meets ">= 0.6"); it is
// borderline when one trial going the other way would flip it. A "= 0" clause is met only at 0/n
// and one pass shows p > 0, so its miss is never borderline. Sequential: sequential.ts decides each
// clause or leaves it undecided. Decisions: see decide().
import { fisherExactGreater } from "../common/index.ts";
import { clauseText, formatRequirement, isExtreme, type Requirement, satisfies } from "./requirement.ts";
import { extremeStatus, type SprtSettings, sprt } from "./sequential.ts";
import { zeroPassUpperBound } from "./stats.ts";

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
  /** Trials not started because the cost ceiling holds them back (never "not run yet"). */
  refused?: number;
  /** Trials curtailment skipped: no outcome of them changes the task's decision (never "not run yet"). */
  curtailed?: number;
  /**
   * Fixed n: the valid trials the cell needs (n). A cell with fewer is short: its clause is
   * undecided unless every outcome of the missing trials misses it alike (discard). Default: runs.
   */
  planned?: number;
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
  /** Fixed n: valid trials short of n (0 when the cell is complete, and under sequential screening). */
  short: number;
  reason: string;
}

export type Decision = "retain" | "revise" | "discard" | "incomplete";

const pct = (passes: number, runs: number) => `${Math.round((100 * passes) / runs)}%`;
const tally = (c: ClauseInput) => `${c.passes}/${c.runs}${c.runs > 0 ? ` (${pct(c.passes, c.runs)})` : ""}`;
/** A bound rounded away from the extreme, so the words never claim more than was shown. */
const upTo3 = (x: number) => Math.ceil(x * 1000 - 1e-9) / 1000;
const downTo3 = (x: number) => Math.floor(x * 1000 + 1e-9) / 1000;

function base(c: ClauseInput, text: string) {
  return {
    cell: c.cell,
    requirement: c.requirement,
    control: c.control,
    text,
    passes: c.passes,
    runs: c.runs,
    short: 0,
  };
}

/** Why a cell's missing trials will not run (the cost ceiling, curtailment), in words; "" when none says. */
const heldWords = (c: ClauseInput) =>
  [
    c.refused ? `${c.refused} not started because of the cost ceiling` : "",
    c.curtailed ? `${c.curtailed} curtailed: no outcome of them changes the decision` : "",
  ]
    .filter((w) => w !== "")
    .join(", ");

function noValidRun(c: ClauseInput, text: string): ClauseResult {
  const all = heldWords(c) ? "" : "all ";
  const excluded =
    c.excluded > 0 ? `${all}${c.excluded} trial(s) excluded as infrastructure errors or unverified` : "";
  const why = [excluded, heldWords(c)].filter((w) => w !== "").join(", ") || "no trial yet";
  return {
    ...base(c, text),
    verdict: "undecided",
    borderline: false,
    short: Math.max(0, (c.planned ?? 0) - c.runs),
    reason: `${c.cell} has no valid trial (${why}): ${text} has no evidence either way`,
  };
}

/** What 0 trials against an extreme clause show: "p(cell) < 0.451" or "p(cell) > 0.549" (one-sided). */
export function extremeShown(cell: string, req: Requirement, runs: number, alpha: number): string {
  const bound = zeroPassUpperBound(runs, alpha);
  const level = `${Math.round((1 - alpha) * 1000) / 10}%`;
  return req.op === "<="
    ? `p(${cell}) < ${upTo3(bound)} at ${level}`
    : `p(${cell}) > ${downTo3(1 - bound)} at ${level}`;
}

/** "a pass shows p(frontier-A) > 0": the trials against an extreme clause, which settle it as missed. */
function extremeMiss(c: ClauseInput): string {
  const against = c.requirement.op === "<=" ? c.passes : c.runs - c.passes;
  const word = c.requirement.op === "<=" ? "pass" : "fail";
  const shown = c.requirement.op === "<=" ? `p(${c.cell}) > 0` : `p(${c.cell}) < 1`;
  return against === 1
    ? `a ${word} shows ${shown}`
    : `${against} ${word}${word === "pass" ? "es" : "s"} show ${shown}`;
}

/** The paper's rule on a complete sample: point estimate, borderline when one trial would flip it. */
function completeClause(c: ClauseInput): ClauseResult {
  const text = clauseText(c.cell, c.requirement);
  if (c.runs === 0) return noValidRun(c, text);
  const met = satisfies(c.requirement, c.passes, c.runs);
  if (isExtreme(c.requirement)) {
    const reason = met
      ? `${c.cell} passed ${tally(c)}: meets ${text} by the point estimate (${extremeShown(c.cell, c.requirement, c.runs, 0.05)}, one-sided)`
      : `${c.cell} passed ${tally(c)}: ${extremeMiss(c)}, so it misses ${text}`;
    return { ...base(c, text), verdict: met ? "met" : "not-met", borderline: false, reason };
  }
  const up = c.requirement.op === ">=" ? 1 : -1; // the direction that helps the clause
  if (met) {
    const worse = c.passes - up;
    const fragile = worse >= 0 && worse <= c.runs && !satisfies(c.requirement, worse, c.runs);
    const reason = fragile
      ? `${c.cell} passed ${tally(c)}: meets ${text} by one trial (${worse}/${c.runs} would not)`
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

/**
 * The paper's rule on a fixed sample of n = `planned` valid trials. A short cell (fewer valid
 * trials, e.g. the rest ended as exhausted infrastructure errors) is judged over every outcome its
 * missing trials could have: a clause missed alike by all of them (a pass under "= 0", or 0/4 for
 * ">= 0.6" at n = 5) is not met; anything else is undecided, so the decision is incomplete.
 */
export function fixedClause(c: ClauseInput): ClauseResult {
  const planned = Math.max(c.planned ?? c.runs, c.runs);
  const short = planned - c.runs;
  if (short === 0 || c.runs === 0) return completeClause({ ...c, planned });
  const text = clauseText(c.cell, c.requirement);
  const completions = Array.from({ length: short + 1 }, (_, j) =>
    completeClause({ ...c, passes: c.passes + j, runs: planned }),
  );
  const settled = completions.every((r) => r.verdict === "not-met" && !r.borderline);
  const head = `${c.cell} passed ${tally(c)}, ${short} valid trial(s) short of n = ${planned}`;
  if (settled && isExtreme(c.requirement)) return { ...completeClause(c), short };
  if (settled) {
    const best = c.requirement.op === ">=" ? c.passes + short : c.passes;
    const reason = `${head}: misses ${text} whatever the missing trial(s) show (at best ${best}/${planned})`;
    return { ...base(c, text), verdict: "not-met", borderline: false, short, reason };
  }
  const parts = [
    c.excluded > 0 ? `${c.excluded} trial(s) excluded as infrastructure errors or unverified` : "",
    heldWords(c),
  ].filter((w) => w !== "");
  const why = parts.length > 0 ? ` (${parts.join(", ")})` : "";
  const reason = `${head}${why}: too few valid trials to judge ${text}`;
  return { ...base(c, text), verdict: "undecided", borderline: false, short, reason };
}

function sequentialExtreme(c: ClauseInput, text: string, s: SprtSettings, cap: number): ClauseResult {
  const status = extremeStatus(c.requirement, c.passes, c.runs, s);
  const head = `${c.cell} passed ${tally(c)}`;
  if (status.verdict === "not-met") {
    const reason = `${head}: ${extremeMiss(c)}, so it misses ${text}`;
    return { ...base(c, text), verdict: "not-met", borderline: false, reason };
  }
  const shown = `${extremeShown(c.cell, c.requirement, c.runs, s.alpha)} (one-sided)`;
  if (status.verdict === "met") {
    const reason = `${head}: ${shown}, within the screening bound ${s.zeroBound}`;
    return { ...base(c, text), verdict: "met", borderline: false, reason };
  }
  const capped = c.runs >= cap;
  const want = `${status.needed} trials without one against it are needed to reach the screening bound ${s.zeroBound}`;
  const reason = capped
    ? `${head}: ${shown}, still undecided at the cap of ${cap} trials (${want})`
    : `${head}: ${shown} so far; ${want}`;
  return { ...base(c, text), verdict: "undecided", borderline: capped, reason };
}

/** Sequential screening: the clause decided, or undecided (borderline once capped). */
export function sequentialClause(c: ClauseInput, s: SprtSettings, cap: number): ClauseResult {
  const text = clauseText(c.cell, c.requirement);
  if (c.runs === 0) return noValidRun(c, text);
  if (isExtreme(c.requirement)) return sequentialExtreme(c, text, s, cap);
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

/** The level at which a control's comparison with the +A cell is called significant. */
export const CONTROL_LEVEL = 0.05;

/**
 * Worded outcome of a control: it must fail like -A. A met control claims that success tracks the
 * artefact's content only when the +A cell (the first rule clause ">= t", t > 0) passes significantly
 * more often: one-sided Fisher exact test at CONTROL_LEVEL (3/5 vs 0/5: p = 21/252 = 0.083, not shown).
 */
function controlReason(r: ClauseResult, results: ClauseResult[]): string {
  if (r.verdict === "not-met")
    return `${r.reason}: the perturbed artefact still passes, so success does not track its content`;
  if (r.verdict !== "met") return r.reason;
  const withA = results.find((x) => !x.control && x.requirement.op === ">=" && x.requirement.threshold > 0);
  if (!withA || withA.runs === 0) return `${r.reason} (no +A cell to compare it with)`;
  const p = fisherExactGreater(withA.passes, withA.runs, r.passes, r.runs);
  const test = `${withA.cell} ${withA.passes}/${withA.runs} vs ${r.cell} ${r.passes}/${r.runs}: one-sided Fisher exact p = ${Number(p.toPrecision(3))}`;
  return p < CONTROL_LEVEL
    ? `${r.reason}; ${test} < ${CONTROL_LEVEL}, so success tracks the artefact's content, not its presence`
    : `${r.reason}; ${test}, not significant at ${CONTROL_LEVEL}, so this does not show that success tracks the artefact's content`;
}

/** The fragility flag of a clause met by one trial: "frontier+A 3/5 meets p >= 0.6 by one trial". */
export function fragility(r: ClauseResult): string {
  return `${r.cell} ${r.passes}/${r.runs} meets p ${formatRequirement(r.requirement)} by one trial`;
}

export interface DecisionResult {
  decision: Decision;
  reasons: string[];
  /** Retain only: clauses met by one trial (one trial the other way would change the decision). */
  borderline: string[];
}

export interface DecisionContext {
  /** Why the decision must wait (trials not run, clauses still screening), or null. */
  pending: string | null;
  /** --strict: a clause met by one trial makes the decision revise instead of a flagged retain. */
  strict: boolean;
  /** The command that runs the missing trials, quoted whenever the decision is incomplete. */
  resume: string;
}

/**
 * discard: a rule clause is missed by more than one trial (or decided not met, or an extreme
 * clause saw a trial against it), on a short cell whatever its missing trials show; incomplete:
 * trials still wanted, a cell has no valid trial, or (fixed n) fewer than n valid trials;
 * revise: every missed rule clause misses by one trial, a clause is undecided at the cap, or a
 * control is not met (under --strict also: a clause met by one trial); retain otherwise, with the
 * clauses met by one trial as its borderline flag.
 */
export function decide(results: ClauseResult[], ctx: DecisionContext): DecisionResult {
  const rule = results.filter((r) => !r.control);
  const controls = results.filter((r) => r.control);
  const missed = rule.filter((r) => r.verdict === "not-met" && !r.borderline);
  if (missed.length > 0) return { decision: "discard", reasons: missed.map((r) => r.reason), borderline: [] };
  // Any decision but discard needs every cell complete: n valid trials (fixed n), or evidence (sequential).
  const empty = results.filter((r) => r.runs === 0 || r.short > 0).map((r) => r.reason);
  const waiting = [...(ctx.pending ? [ctx.pending] : []), ...empty];
  if (waiting.length > 0) {
    return { decision: "incomplete", reasons: [...waiting, `resume with  ${ctx.resume}`], borderline: [] };
  }
  const shaky = rule.filter((r) => r.verdict !== "met" || (ctx.strict && r.borderline));
  const failedControls = controls.filter((r) => r.verdict !== "met" || (ctx.strict && r.borderline));
  if (shaky.length > 0 || failedControls.length > 0) {
    return {
      decision: "revise",
      reasons: [
        ...shaky.map((r) => `borderline: ${r.reason}`),
        ...failedControls.map((r) => controlReason(r, results)),
      ],
      borderline: [],
    };
  }
  return {
    decision: "retain",
    reasons: [...rule.map((r) => r.reason), ...controls.map((r) => controlReason(r, results))],
    borderline: results.filter((r) => r.verdict === "met" && r.borderline).map(fragility),
  };
}
