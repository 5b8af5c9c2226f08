// Token usage of model calls: normalised counts from each wire format, and a trial's running totals
// with its cost, each call priced as it was billed (pricing.ts) or charged at its reservation.
import { type Usage, ZERO_USAGE } from "../record/index.ts";
import type { Pricing } from "./config.ts";
import { type CallUsage, callCostUsd, reservationCostUsd } from "./pricing.ts";

export { type CallUsage, NO_CALL_USAGE } from "./pricing.ts";

const n = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) && v > 0 ? Math.round(v) : 0);

/** From an Anthropic Messages `usage` object (`cache_creation` splits the writes by lifetime). */
export function fromAnthropicUsage(u: Record<string, unknown> | null | undefined): CallUsage {
  const creation = u?.cache_creation as Record<string, unknown> | null | undefined;
  return {
    input: n(u?.input_tokens),
    output: n(u?.output_tokens),
    cacheRead: n(u?.cache_read_input_tokens),
    cacheWrite: n(u?.cache_creation_input_tokens),
    cacheWrite1h: n(creation?.ephemeral_1h_input_tokens),
  };
}

/**
 * From an OpenAI Chat Completions (`prompt_tokens`) or Responses (`input_tokens`) usage object.
 * OpenAI counts cached tokens inside the prompt total; they are moved to cacheRead here.
 */
export function fromOpenAIUsage(u: Record<string, unknown> | null | undefined): CallUsage {
  const details = (u?.prompt_tokens_details ?? u?.input_tokens_details) as
    | Record<string, unknown>
    | undefined;
  const cached = n(details?.cached_tokens);
  const prompt = n(u?.prompt_tokens ?? u?.input_tokens);
  return {
    input: Math.max(0, prompt - cached),
    output: n(u?.completion_tokens ?? u?.output_tokens),
    cacheRead: cached,
    cacheWrite: 0,
    cacheWrite1h: 0,
  };
}

export function totalTokens(u: CallUsage | Usage): number {
  if ("inputTokens" in u) return u.inputTokens + u.outputTokens + u.cacheReadTokens + u.cacheWriteTokens;
  return u.input + u.output + u.cacheRead + u.cacheWrite;
}

/** Running totals of a trial's model calls: tokens, and USD summed call by call. */
export class UsageMeter {
  private usage: Usage = { ...ZERO_USAGE };
  private usd = 0;

  constructor(private readonly pricing: Pricing | null) {}

  /** A call as the provider reported it, priced at its tier's rates. */
  add(call: CallUsage): void {
    this.count(call, this.pricing ? callCostUsd(call, this.pricing) : 0);
  }

  /**
   * A call whose usage never reached kgate, charged at its reservation: `inputBound` tokens sent and
   * `outputCap` generated, at the dearest rates (the sent tokens could have been any kind of input).
   */
  addReservation(inputBound: number, outputCap: number): void {
    const usd = this.pricing ? reservationCostUsd(this.pricing, inputBound, outputCap) : 0;
    this.count({ input: inputBound, output: outputCap, cacheRead: 0, cacheWrite: 0, cacheWrite1h: 0 }, usd);
    this.usage.callsChargedAtReservation += 1;
  }

  get total(): number {
    return totalTokens(this.usage);
  }

  snapshot(): Usage {
    return { ...this.usage, costUsd: this.pricing ? Math.round(this.usd * 1e6) / 1e6 : null };
  }

  private count(call: CallUsage, usd: number): void {
    this.usage.inputTokens += call.input;
    this.usage.outputTokens += call.output;
    this.usage.cacheReadTokens += call.cacheRead;
    this.usage.cacheWriteTokens += call.cacheWrite;
    this.usage.cacheWrite1hTokens += Math.min(call.cacheWrite1h, call.cacheWrite);
    this.usage.modelCalls += 1;
    this.usd += usd;
  }
}
