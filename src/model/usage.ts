// Token usage and cost of a trial (or of one model call), as every record carries it.
import { z } from "zod";

export const Usage = z.object({
  inputTokens: z.number().int().nonnegative().default(0),
  outputTokens: z.number().int().nonnegative().default(0),
  cacheReadTokens: z.number().int().nonnegative().default(0),
  cacheWriteTokens: z.number().int().nonnegative().default(0),
  modelCalls: z.number().int().nonnegative().default(0),
  /** USD; null when the configuration declares no pricing. */
  costUsd: z.number().nonnegative().nullable().default(null),
});
export type Usage = z.infer<typeof Usage>;

export const ZERO_USAGE: Usage = Usage.parse({});
