// What a trial's judges can cost at most (USD): each judge call of a task's bound (src/trial's
// judgeCallBounds) priced at its judge configuration's prices, every token sent at the dearest input
// price and the answer at the judge's output cap.
import { JUDGE_MAX_OUTPUT_TOKENS, type Pricing } from "../agents/index.ts";
import type { JudgeCallsBound } from "../trial/index.ts";
import { type CallBound, callsWorstCaseUsd, MESSAGE_FRAMING_TOKENS } from "./worst-case.ts";

/** A judge configuration's prices and output cap (null: no such configuration). */
export type JudgeCaps = { pricing: Pricing | null; maxOutputTokens: number } | null;

export interface JudgeWorstCase {
  /** null when a judge has no prices (or no configuration). */
  usd: number | null;
  tokens: { input: number; output: number };
  calls: number;
  /** Judge configurations without prices. */
  unpriced: string[];
}

/** The most a trial's judge calls can cost; three framed parts per call (system, tool, message). */
export function judgeWorstCase(
  bounds: readonly JudgeCallsBound[],
  capsOf: (config: string) => JudgeCaps,
): JudgeWorstCase {
  let usd: number | null = 0;
  const tokens = { input: 0, output: 0 };
  const unpriced = new Set<string>();
  let calls = 0;
  for (const bound of bounds) {
    const caps = capsOf(bound.config);
    const output = Math.min(caps?.maxOutputTokens ?? JUDGE_MAX_OUTPUT_TOKENS, JUDGE_MAX_OUTPUT_TOKENS);
    const sent: CallBound[] = bound.inputBytes.map((b) => ({
      input: b + 3 * MESSAGE_FRAMING_TOKENS,
      output,
    }));
    calls += sent.length;
    for (const c of sent) {
      tokens.input += c.input;
      tokens.output += c.output;
    }
    const priced = callsWorstCaseUsd(caps?.pricing, sent);
    if (priced === null) unpriced.add(bound.config);
    usd = usd === null || priced === null ? null : usd + priced;
  }
  return { usd, tokens, calls, unpriced: [...unpriced] };
}
