// Token usage of model calls: normalised counts from each wire format, totals, and cost.
import type { Usage } from "../model/index.ts";
import type { Pricing } from "./config.ts";

/** One model call's tokens. `input` excludes cache reads and writes (the Anthropic convention). */
export interface CallUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

export const NO_CALL_USAGE: CallUsage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };

const n = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) && v > 0 ? Math.round(v) : 0);

/** From an Anthropic Messages `usage` object. */
export function fromAnthropicUsage(u: Record<string, unknown> | null | undefined): CallUsage {
  return {
    input: n(u?.input_tokens),
    output: n(u?.output_tokens),
    cacheRead: n(u?.cache_read_input_tokens),
    cacheWrite: n(u?.cache_creation_input_tokens),
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
  };
}

export function totalTokens(u: CallUsage | Usage): number {
  if ("inputTokens" in u) return u.inputTokens + u.outputTokens + u.cacheReadTokens + u.cacheWriteTokens;
  return u.input + u.output + u.cacheRead + u.cacheWrite;
}

/** USD for the given counts; null without pricing. */
export function costUsd(u: Usage, pricing: Pricing | null): number | null {
  if (!pricing) return null;
  const cacheRead = pricing.cacheReadPerMTok ?? pricing.inputPerMTok;
  const cacheWrite = pricing.cacheWritePerMTok ?? pricing.inputPerMTok;
  const usd =
    (u.inputTokens * pricing.inputPerMTok +
      u.outputTokens * pricing.outputPerMTok +
      u.cacheReadTokens * cacheRead +
      u.cacheWriteTokens * cacheWrite) /
    1_000_000;
  return Math.round(usd * 1e6) / 1e6;
}

/** Running totals of a trial's model calls. */
export class UsageMeter {
  private usage: Usage = {
    inputTokens: 0,
    outputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    modelCalls: 0,
    costUsd: null,
  };

  constructor(private readonly pricing: Pricing | null) {}

  add(call: CallUsage): void {
    this.usage.inputTokens += call.input;
    this.usage.outputTokens += call.output;
    this.usage.cacheReadTokens += call.cacheRead;
    this.usage.cacheWriteTokens += call.cacheWrite;
    this.usage.modelCalls += 1;
  }

  get total(): number {
    return totalTokens(this.usage);
  }

  snapshot(): Usage {
    return { ...this.usage, costUsd: costUsd(this.usage, this.pricing) };
  }
}
