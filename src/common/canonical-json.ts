// The one canonical JSON behind kgate's digests (agent configurations, a plan's decision settings):
// RFC 8785, the JSON Canonicalization Scheme, through `json-canonicalize`: object keys sorted by
// UTF-16 code units at every level, undefined members left out (null in arrays, as JSON.stringify
// does), numbers as JavaScript prints them. Equal values give equal text, so equal digests; for the
// values kgate digests (strings, numbers, booleans, null, arrays, plain objects) it is the text its
// two hand-written helpers gave before. The package ships CommonJS beside ESM, so a verifier run
// from the sources through tsx's CommonJS path (KGATE_NO_BUNDLE=1) loads it too.
import { createHash } from "node:crypto";
import { canonicalizeEx } from "json-canonicalize";

/** The canonical text of a JSON value; throws on a value JSON cannot hold (undefined, a function). */
export function canonicalJson(value: unknown): string {
  if (value === undefined || typeof value === "function" || typeof value === "symbol") {
    throw new TypeError("canonicalJson: the value has no JSON text");
  }
  return canonicalizeEx(value, { filterUndefined: true, undefinedInArrayToNull: true });
}

/** sha256 (hex) of the canonical text. */
export function canonicalDigest(value: unknown): string {
  return createHash("sha256").update(canonicalJson(value)).digest("hex");
}
