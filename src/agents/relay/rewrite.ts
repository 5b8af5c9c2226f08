// What the relay overwrites in a model call before forwarding it: the configured model, the output
// cap in every field of the format that holds one (Chat Completions knows two), one choice per call
// (`n`), and no state kept at the provider (`store` false). The request's own values are read first
// for the reservation (requestedMaxTokens).
import type { WireApi } from "./wire.ts";

type Json = Record<string, unknown>;

/** The output-token cap fields of each format, the one set when the request names none first. */
export const CAP_FIELDS: Record<WireApi, readonly [string, ...string[]]> = {
  anthropic: ["max_tokens"],
  "openai-chat": ["max_completion_tokens", "max_tokens"],
  "openai-responses": ["max_output_tokens"],
};

/** The smallest output cap the request asked for in any of its cap fields (null when it named none). */
export function requestedMaxTokens(api: WireApi, body: Json): number | null {
  const asked = CAP_FIELDS[api]
    .map((field) => body[field])
    .filter((v): v is number => typeof v === "number" && Number.isFinite(v));
  return asked.length > 0 ? Math.min(...asked) : null;
}

/**
 * Forces the model (when configured), writes the granted cap into every cap field the request used
 * (the first of CAP_FIELDS when it used none: a leftover `max_tokens` beside `max_completion_tokens`
 * is capped too), one choice (Chat's `n`: n choices would each spend the cap), and `store: false` on
 * the OpenAI formats (no response or completion kept at the provider for a later call to reach).
 */
export function rewriteModelCall(api: WireApi, body: Json, model: string | null, maxTokens: number): void {
  if (model !== null) body.model = model;
  const used = CAP_FIELDS[api].filter((field) => field in body);
  for (const field of used.length > 0 ? used : [CAP_FIELDS[api][0]]) body[field] = maxTokens;
  if (api === "openai-chat" && "n" in body) body.n = 1;
  // Responses stores by default; Chat Completions only when asked (and compatible servers may not
  // know the field, so it is not added there)
  if (api === "openai-responses" || (api === "openai-chat" && "store" in body)) body.store = false;
}
