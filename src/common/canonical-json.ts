// The one canonical JSON behind kgate's digests (agent configurations, a plan's decision settings):
// RFC 8785, the JSON Canonicalization Scheme, through `canonicalize`: object keys sorted by UTF-16
// code units at every level, undefined members left out, numbers as JavaScript prints them. Equal
// values give equal text, so equal digests; for the values kgate digests (strings, numbers,
// booleans, null, arrays, plain objects) it is the text its two hand-written helpers gave before.
import { createHash } from "node:crypto";
import canonicalize from "canonicalize";

/** The canonical text of a JSON value; throws on a value JSON cannot hold (undefined, a function). */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError("canonicalJson: the value has no JSON text");
  return text;
}

/** sha256 (hex) of the canonical text. */
export function canonicalDigest(value: unknown): string {
  return createHash("sha256").update(canonicalJson(value)).digest("hex");
}
