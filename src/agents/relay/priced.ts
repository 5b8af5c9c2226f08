// What the relay refuses because kgate could not price it: a billing dimension the configuration has
// no rate for. Anthropic bills a 1-hour cache write (`cache_control.ttl: "1h"`) at its own rate (2x the
// input price, against 1.25x for 5 minutes): without `pricing.cacheWrite1hPerMTok` such a request is
// refused, as is a lifetime kgate does not know; the worst case then bounds what every call costs.
import type { Pricing } from "../config.ts";
import type { WireApi } from "./wire.ts";

const KNOWN_TTLS = new Set(["5m", "1h"]);

/** Every value under a `cache_control` key of the request (the body is bounded in depth by guard.ts). */
function cacheControls(body: unknown): unknown[] {
  const found: unknown[] = [];
  const stack: unknown[] = [body];
  for (let value = stack.pop(); value !== undefined; value = stack.pop()) {
    if (value === null || typeof value !== "object") continue;
    if (Array.isArray(value)) stack.push(...value);
    else
      for (const [key, child] of Object.entries(value)) {
        if (key === "cache_control") found.push(child);
        stack.push(child);
      }
  }
  return found;
}

/** Why the request cannot be priced under `pricing` (with the fix), or null. No pricing: no cost kept. */
export function unpricedProblem(
  api: WireApi,
  body: Record<string, unknown>,
  pricing: Pricing | null,
): string | null {
  if (!pricing || api !== "anthropic") return null;
  for (const control of cacheControls(body)) {
    const ttl = (control as { ttl?: unknown } | null)?.ttl;
    if (ttl === undefined) continue;
    if (typeof ttl !== "string" || !KNOWN_TTLS.has(ttl))
      return `cache_control.ttl ${JSON.stringify(ttl)}: kgate prices cache writes of 5m and 1h only`;
    if (ttl === "1h" && pricing.cacheWrite1hPerMTok === undefined)
      return 'cache_control.ttl "1h": 1-hour cache writes have no price in this configuration (pricing.cacheWrite1hPerMTok)';
  }
  return null;
}
