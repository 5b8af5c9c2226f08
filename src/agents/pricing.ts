// What a model call costs under a configuration's prices: every billing dimension kgate relays (input,
// output, cache reads, 5-minute and 1-hour cache writes) at the rates of the call's long-context tier;
// and the dearest rates any call can be billed at, which bound a call kgate charges at its reservation
// and a trial's worst case.
import type { PriceTier, Pricing } from "./config.ts";

/** One call's tokens. `input` excludes cache reads and writes (the Anthropic convention). */
export interface CallUsage {
  input: number;
  output: number;
  cacheRead: number;
  /** Cache writes of any lifetime... */
  cacheWrite: number;
  /** ...of which these were written for one hour. */
  cacheWrite1h: number;
}

export const NO_CALL_USAGE: CallUsage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cacheWrite1h: 0 };

/** Every rate resolved (USD per million tokens): a tier's or the base's, defaults filled in. */
export interface Rates {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** null: not priced (the relay refuses 1-hour cache writes then). */
  cacheWrite1h: number | null;
}

function resolved(r: Omit<PriceTier, "aboveInputTokens">): Rates {
  return {
    input: r.inputPerMTok,
    output: r.outputPerMTok,
    cacheRead: r.cacheReadPerMTok ?? r.inputPerMTok,
    cacheWrite: r.cacheWritePerMTok ?? r.inputPerMTok,
    cacheWrite1h: r.cacheWrite1hPerMTok ?? null,
  };
}

/** Tokens a call sends (uncached, read from and written to the cache): what selects its tier. */
export function sentTokens(call: CallUsage): number {
  return call.input + call.cacheRead + call.cacheWrite;
}

/** The rates a call sending `sent` tokens is billed at: the highest tier it passes, else the base. */
export function ratesFor(pricing: Pricing, sent: number): Rates {
  const tier = (pricing.tiers ?? []).filter((t) => sent > t.aboveInputTokens).at(-1);
  return resolved(tier ?? pricing);
}

/**
 * USD of one call whose usage the provider reported (unrounded). 1-hour cache writes without a
 * 1-hour price (the relay lets none through; a provider that reports some anyway) are priced at the
 * dearest rate a sent token has.
 */
export function callCostUsd(call: CallUsage, pricing: Pricing): number {
  const r = ratesFor(pricing, sentTokens(call));
  const oneHour = Math.min(call.cacheWrite1h, call.cacheWrite);
  const oneHourRate = r.cacheWrite1h ?? dearestRates(pricing).input;
  return (
    (call.input * r.input +
      call.output * r.output +
      call.cacheRead * r.cacheRead +
      (call.cacheWrite - oneHour) * r.cacheWrite +
      oneHour * oneHourRate) /
    1_000_000
  );
}

/**
 * The dearest rate a sent token and an output token can have under these prices, over every tier
 * and every way of sending (uncached, cache read, either cache write), USD per million.
 */
export function dearestRates(pricing: Pricing): { input: number; output: number } {
  const all = [pricing, ...(pricing.tiers ?? [])].map(resolved);
  return {
    input: Math.max(...all.flatMap((r) => [r.input, r.cacheRead, r.cacheWrite, r.cacheWrite1h ?? 0])),
    output: Math.max(...all.map((r) => r.output)),
  };
}

/** USD of a call charged at its reservation: its input bound and output cap at the dearest rates. */
export function reservationCostUsd(pricing: Pricing, inputBound: number, outputCap: number): number {
  const dear = dearestRates(pricing);
  return (inputBound * dear.input + outputCap * dear.output) / 1_000_000;
}
