// The most one unit of work can cost (USD): a session bounded by a configuration's token caps
// (calibration trials, task exams, sandboxed triage units), or model calls bounded by what is sent
// and their output caps (item and inline exams, triage's item units and plans).
import { type AgentConfig, dearestRates, type Pricing } from "../agents/index.ts";
import type { UnitBound } from "./estimate.ts";

/**
 * What bounds one session's cost: the configuration's caps and prices, and its harness (the built-in
 * loop's every call is a turn; an installed harness's calls without tools are not, so maxTurns bounds
 * none of its output). Without a harness, the bound that holds for any.
 */
export type CostCaps = Pick<
  AgentConfig,
  "tokenBudget" | "maxTurns" | "maxOutputTokens" | "outputTokenBudget" | "pricing"
> &
  Partial<Pick<AgentConfig, "harness">>;

const perToken = (usdPerMTok: number) => usdPerMTok / 1e6;

/** USD per million tokens at which a bound prices its input and output tokens. */
interface BoundRates {
  input: number;
  output: number;
}

/**
 * One session of a configuration on a task at its worst: the token split it costs most at, what
 * that costs (null when the configuration has no prices) and the rates it is priced at. Tokens are
 * bounded by the tighter of its token budget and the task's maxTokens; output tokens also by its
 * output budget and, in the built-in loop, by maxTurns x maxOutputTokens; every token is counted at
 * the dearest rate of its kind (input of any kind, output) over every tier, so the printed tokens
 * times the printed rates give the cost. Without prices the split is the most output the session
 * can make. The relay charges no call more than its reservation within the token budget
 * (docs/agents.md), so this bounds what a trial is charged whatever its harness sends.
 */
function sessionWorstCase(
  caps: CostCaps,
  taskMaxTokens: number,
): { input: number; output: number; usd: number | null; rates: BoundRates | null } {
  const total = Math.min(caps.tokenBudget, taskMaxTokens);
  const turns = caps.harness === "builtin" ? caps.maxTurns * caps.maxOutputTokens : total;
  const output = Math.min(total, caps.outputTokenBudget ?? total, turns);
  const mostOut = { input: total - output, output };
  if (!caps.pricing) return { ...mostOut, usd: null, rates: null };
  const rates = dearestRates(caps.pricing);
  const cost = (t: { input: number; output: number }) =>
    t.input * perToken(rates.input) + t.output * perToken(rates.output);
  // A linear cost over output in [0, output]: the worst case is at one end.
  const allIn = { input: total, output: 0 };
  const worst = cost(allIn) > cost(mostOut) ? allIn : mostOut;
  return { ...worst, usd: cost(worst), rates };
}

/** How a bound's tokens are priced, in words: each kind at its dearest rate. */
function ratesText(rates: BoundRates): string {
  return `$${rates.input}/MTok in, $${rates.output}/MTok out (the dearest rate of each kind)`;
}

/** One session's bound for an estimate: its worst-case tokens, their cost and how they are priced. */
export function sessionCostBound(caps: CostCaps, taskMaxTokens: number): UnitBound {
  const worst = sessionWorstCase(caps, taskMaxTokens);
  return {
    tokens: { input: worst.input, output: worst.output, cacheRead: 0, cacheWrite: 0 },
    usd: worst.usd,
    ...(worst.rates ? { priced: ratesText(worst.rates) } : {}),
  };
}

/** The most one session of a configuration can cost on a task (USD), or null without prices. */
export function worstCaseUsd(caps: CostCaps, taskMaxTokens: number): number | null {
  return sessionWorstCase(caps, taskMaxTokens).usd;
}

/** Tokens allowed for a message's framing (role markers, separators) beside its text. */
export const MESSAGE_FRAMING_TOKENS = 16;

/**
 * At most how many tokens a message of this text is sent as: its UTF-8 bytes (a byte-level tokenizer
 * never makes more tokens than bytes) plus the framing allowance.
 */
export function sentTokensBound(text: string): number {
  return Buffer.byteLength(text, "utf8") + MESSAGE_FRAMING_TOKENS;
}

/** One model call's bound: tokens sent (every one at the dearest input price) and its output cap. */
export interface CallBound {
  input: number;
  output: number;
}

/** The most these model calls can cost (USD), or null without prices. */
export function callsWorstCaseUsd(
  pricing: Pricing | null | undefined,
  calls: readonly CallBound[],
): number | null {
  if (!pricing) return null;
  const dear = dearestRates(pricing);
  return calls.reduce((s, c) => s + c.input * perToken(dear.input) + c.output * perToken(dear.output), 0);
}

/** Tokens priced as recorded (cache tokens at their own prices, default the input price). */
export function priceTokens(
  pricing: Pricing,
  t: { input: number; output: number; cacheRead?: number; cacheWrite?: number },
): number {
  return (
    t.input * perToken(pricing.inputPerMTok) +
    t.output * perToken(pricing.outputPerMTok) +
    (t.cacheRead ?? 0) * perToken(pricing.cacheReadPerMTok ?? pricing.inputPerMTok) +
    (t.cacheWrite ?? 0) * perToken(pricing.cacheWritePerMTok ?? pricing.inputPerMTok)
  );
}

/**
 * A conversation of one model call per user turn (the inline form): call i sends the system prompt,
 * the turns so far and the replies before it (each counted as the output cap it was generated under),
 * and generates at most the output cap.
 */
export function conversationBound(
  pricing: Pricing | null | undefined,
  maxOutputTokens: number,
  system: string,
  turns: readonly string[],
): { tokens: { input: number; output: number; cacheRead: number; cacheWrite: number }; usd: number | null } {
  const calls: CallBound[] = [];
  let sent = sentTokensBound(system);
  for (const turn of turns) {
    sent += sentTokensBound(turn);
    calls.push({ input: sent, output: maxOutputTokens });
    sent += maxOutputTokens + MESSAGE_FRAMING_TOKENS;
  }
  return {
    tokens: {
      input: calls.reduce((s, c) => s + c.input, 0),
      output: calls.reduce((s, c) => s + c.output, 0),
      cacheRead: 0,
      cacheWrite: 0,
    },
    usd: callsWorstCaseUsd(pricing, calls),
  };
}
