// Token usage and cost of a trial (or of one model call), as every record carries it. A record's
// `usage` is what kgate charged: the provider's own report for every call whose reply kgate read to
// its end, and the call's reservation (its input bound and granted output cap) for a call whose usage
// never reached kgate (a harness that hung up mid-reply, an upstream cut off); see docs/runs.md.
import { z } from "zod";

export const Usage = z.object({
  inputTokens: z.number().int().nonnegative().default(0),
  outputTokens: z.number().int().nonnegative().default(0),
  cacheReadTokens: z.number().int().nonnegative().default(0),
  /** Tokens written to the prompt cache, at any lifetime (1-hour writes included). */
  cacheWriteTokens: z.number().int().nonnegative().default(0),
  /** Of cacheWriteTokens, those written for one hour (Anthropic's `ttl: "1h"`, priced apart). */
  cacheWrite1hTokens: z.number().int().nonnegative().default(0),
  modelCalls: z.number().int().nonnegative().default(0),
  /**
   * Of modelCalls, those whose usage the provider never reported to kgate, each charged at its
   * reservation (input bound + granted output cap, priced at the dearest rates). 0 in older records.
   */
  callsChargedAtReservation: z.number().int().nonnegative().default(0),
  /** USD; null when the configuration declares no pricing. */
  costUsd: z.number().nonnegative().nullable().default(null),
});
export type Usage = z.infer<typeof Usage>;

export const ZERO_USAGE: Usage = Usage.parse({});

/** Two usages added up (the cost null when either has none). */
export function addUsage(a: Usage, b: Usage): Usage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
    cacheWrite1hTokens: a.cacheWrite1hTokens + b.cacheWrite1hTokens,
    modelCalls: a.modelCalls + b.modelCalls,
    callsChargedAtReservation: a.callsChargedAtReservation + b.callsChargedAtReservation,
    costUsd:
      a.costUsd === null || b.costUsd === null ? null : Math.round((a.costUsd + b.costUsd) * 1e6) / 1e6,
  };
}
