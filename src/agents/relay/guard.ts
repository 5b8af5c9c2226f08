// The relay's egress rule: everything a request can reference is inline, or it is refused. One walk
// of the whole request body (allowlist.ts says what may be where) refuses a top-level field not on
// the format's list, any object whose `type` is not on it (a new nesting is refused by default),
// any URL that is not a data: URL, and any key naming stored state (an uploaded file, a container, an
// earlier response), wherever it sits; the problem names its JSON path. The walk is iterative and
// bounded in depth, so no body can exhaust the stack.
import { FIELDS, OPAQUE, REFERENCE_KEYS, typeAllowed, URL_KEYS } from "./allowlist.ts";
import type { WireApi } from "./wire.ts";

type Json = Record<string, unknown>;

/** Deepest nesting a request may have (real ones: about 10; JSON schemas inside tools: a few more). */
export const MAX_DEPTH = 100;

interface Place {
  value: unknown;
  path: string;
  depth: number;
  /** The nearest object key above this value (array indices skipped), for OPAQUE's `under`. */
  under: string | null;
  /** Inside an opaque subtree: only the depth is checked. */
  opaque: boolean;
}

const isObject = (v: unknown): v is Json => v !== null && typeof v === "object" && !Array.isArray(v);

/** Why the provider could fetch or resolve something for this request (a JSON path named), or null. */
export function egressProblem(api: WireApi, body: Json): string | null {
  for (const key of Object.keys(body)) {
    if (!FIELDS[api].has(key)) return `request field "${key}"`;
  }
  const stack: Place[] = [{ value: body, path: "", depth: 0, under: null, opaque: false }];
  for (let place = stack.pop(); place; place = stack.pop()) {
    const { value, path, depth } = place;
    if (value === null || typeof value !== "object") continue;
    if (depth > MAX_DEPTH) return `${path}: nested deeper than ${MAX_DEPTH} levels`;
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--)
        stack.push({ ...place, value: value[i], path: `${path}[${i}]`, depth: depth + 1 });
      continue;
    }
    const problem = place.opaque ? null : objectProblem(api, value as Json, path);
    if (problem) return problem;
    const entries = Object.entries(value as Json);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, child] = entries[i]!;
      stack.push({
        value: child,
        path: path ? `${path}.${key}` : key,
        depth: depth + 1,
        under: key,
        opaque: place.opaque || isOpaque(api, value as Json, key, place.under),
      });
    }
  }
  return null;
}

/** What is wrong with one object of the request itself (its children are walked apart). */
function objectProblem(api: WireApi, obj: Json, path: string): string | null {
  const at = path || "the request";
  if ("type" in obj) {
    const type = obj.type;
    if (typeof type !== "string") return `${at}.type: not a string`;
    if (!typeAllowed(api, type))
      return `${at}: ${path.startsWith("tools") ? "hosted tool " : ""}type "${type}"`;
  }
  for (const [key, v] of Object.entries(obj)) {
    const where = path ? `${path}.${key}` : key;
    if (REFERENCE_KEYS.has(key)) return `${where}: a reference to stored state`;
    // a data: URL is inline; an object (Chat's image_url: {url}) is walked in its turn
    if (URL_KEYS.has(key) && !(typeof v === "string" ? v.startsWith("data:") : isObject(v))) {
      return `${where}: a URL that is not a data: URL`;
    }
  }
  return null;
}

function isOpaque(api: WireApi, holder: Json, key: string, under: string | null): boolean {
  return OPAQUE[api].some(
    (o) =>
      o.key === key &&
      (o.holderType === undefined || holder.type === o.holderType) &&
      (o.under === undefined || o.under === under),
  );
}
