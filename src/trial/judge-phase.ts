// Judge criteria on the host, after the verifier's worker has run the code criteria: each pending
// criterion is asked of its judge (a network call with the host's key; keys never enter a container
// or a worker), then a failed verdict's failed judge criteria are asked again as each candidate
// convention set states them, to attribute the failure. A judge that gives no verdict throws
// JudgeError (the trial's `judge` error: never the agent's failure, never a pass).
import {
  type Deliverable,
  type JudgeCallResult,
  type JudgePanel,
  JudgeUnavailableError,
} from "../agents/index.ts";
import {
  addUsage,
  type CriterionResult,
  type JudgeOutcome,
  type Usage,
  type Verdict,
} from "../record/index.ts";
import {
  attributionNeeded,
  type OutputForVerification,
  pendingJudgeCriteria,
  settleJudged,
} from "../verify/index.ts";

/** A judge gave no verdict; `verdict` is the verdict as it stands (unverified), with what was spent. */
export class JudgeError extends Error {
  override name = "JudgeError";
  constructor(
    readonly verdict: Verdict,
    message: string,
  ) {
    super(message);
  }
}

export interface JudgeOptions {
  panel: JudgePanel;
  /** `kgate check` without a judge's key: its criteria are skipped (left out of R), not an error. */
  skipUnavailable?: boolean;
  /** Ask failed criteria as the candidates state them, to attribute the failure (default true). */
  attribute?: boolean;
  signal?: AbortSignal;
}

const decoder = new TextDecoder("utf-8");

/** The outputs a judge reads, as text. */
function deliverablesOf(reads: readonly string[], outputs: readonly OutputForVerification[]): Deliverable[] {
  return reads.map((path) => {
    const bytes = outputs.find((o) => o.path === path)?.bytes;
    return { path, text: bytes ? decoder.decode(bytes) : "" };
  });
}

/** Two usages added (the first may be missing: nothing spent yet). */
function plus(a: Usage | undefined, b: Usage): Usage {
  return a ? addUsage(a, b) : b;
}

function answered(judge: JudgeOutcome, r: JudgeCallResult): JudgeOutcome {
  return {
    ...judge,
    verdict: r.verdict,
    reason: r.reason,
    model: r.model,
    temperature: r.temperature,
    usage: plus(judge.usage, r.usage),
  };
}

/** Each pending criterion asked of its judge; stops at the first judge that gives no verdict. */
async function judgePending(
  pending: readonly CriterionResult[],
  outputs: readonly OutputForVerification[],
  o: JudgeOptions,
): Promise<{ outcomes: Map<string, JudgeOutcome>; failure: string | null }> {
  const outcomes = new Map<string, JudgeOutcome>();
  for (const c of pending) {
    const judge = c.judge!;
    const skip = o.skipUnavailable ? o.panel.unavailable(judge.config) : null;
    if (skip) {
      outcomes.set(c.name, { ...judge, verdict: "skipped", reason: `not judged: ${skip}` });
      continue;
    }
    try {
      const r = await o.panel.ask(
        judge.config,
        judge.criterion,
        deliverablesOf(judge.reads, outputs),
        o.signal,
      );
      outcomes.set(c.name, answered(judge, r));
    } catch (err) {
      if (!(err instanceof JudgeUnavailableError)) throw err;
      outcomes.set(c.name, { ...judge, verdict: "error", reason: err.message });
      return { outcomes, failure: `the judge of ${c.name} gave no verdict: ${err.message}` };
    }
  }
  return { outcomes, failure: null };
}

/**
 * The failed judge criteria asked as each candidate states them. A judge that gives no verdict here
 * ends the attribution calls (the verdict stands; the candidates not asked count as not agreeing).
 */
async function judgeCandidates(
  verdict: Verdict,
  outputs: readonly OutputForVerification[],
  o: JudgeOptions,
): Promise<Map<string, JudgeOutcome>> {
  const outcomes = new Map<string, JudgeOutcome>();
  for (const c of attributionNeeded(verdict)) {
    let judge: JudgeOutcome = { ...c.judge!, attribution: {} };
    for (const [label, text] of Object.entries(judge.candidates ?? {})) {
      try {
        const r = await o.panel.ask(judge.config, text, deliverablesOf(judge.reads, outputs), o.signal);
        judge = {
          ...judge,
          usage: plus(judge.usage, r.usage),
          attribution: { ...judge.attribution, [label]: r.verdict === "pass" },
        };
      } catch (err) {
        if (!(err instanceof JudgeUnavailableError)) throw err;
        outcomes.set(c.name, judge);
        return outcomes;
      }
    }
    outcomes.set(c.name, judge);
  }
  return outcomes;
}

/** The verdict with its pending judge criteria judged (unchanged when it has none). */
export async function judgeVerdict(
  verdict: Verdict,
  outputs: readonly OutputForVerification[],
  o: JudgeOptions,
): Promise<Verdict> {
  const pending = pendingJudgeCriteria(verdict);
  if (pending.length === 0) return verdict;
  const { outcomes, failure } = await judgePending(pending, outputs, o);
  const settled = settleJudged(verdict, outcomes);
  if (failure) throw new JudgeError(settled, failure);
  if (o.attribute === false) return settled;
  const attributed = await judgeCandidates(settled, outputs, o);
  if (attributed.size === 0) return settled;
  for (const [name, judge] of attributed) outcomes.set(name, judge);
  return settleJudged(verdict, outcomes);
}

/** The judges' usage over verdicts (null when no judge was asked). */
export function judgeUsageOf(verdicts: readonly Verdict[]): Usage | null {
  let total: Usage | undefined;
  for (const verdict of verdicts)
    for (const c of verdict.criteria) if (c.judge?.usage) total = plus(total, c.judge.usage);
  return total ?? null;
}
