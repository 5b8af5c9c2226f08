// Winnowed fingerprints of a token stream (Schleimer, Wilkerson and Aiken, "Winnowing: local
// algorithms for document fingerprinting", SIGMOD 2003, as MOSS uses them): every k-gram of tokens
// is hashed, and in each window of w consecutive hashes the smallest is kept (the rightmost on a
// tie). Any run of at least w + k - 1 tokens two streams share gives them a fingerprint in common.

/** Tokens per k-gram: shorter runs are too common in any code to mean anything. */
export const GRAM = 6;
/** Hashes per window: a shared run of WINDOW + GRAM - 1 tokens is always found. */
export const WINDOW = 4;

/** The hash of each k-gram of `ids` (FNV-1a over the token ids), one per start position. */
export function gramHashes(ids: readonly number[], k = GRAM): Uint32Array {
  const count = Math.max(0, ids.length - k + 1);
  const out = new Uint32Array(count);
  for (let start = 0; start < count; start++) {
    let h = 0x811c9dc5;
    for (let j = start; j < start + k; j++) h = Math.imul(h ^ ids[j]!, 0x01000193);
    out[start] = h >>> 0;
  }
  return out;
}

export interface Fingerprint {
  hash: number;
  /** The k-gram's position in the token stream. */
  at: number;
}

/** The winnowed fingerprints of k-gram hashes (each chosen position once). */
export function winnow(hashes: Uint32Array, w = WINDOW): Fingerprint[] {
  const out: Fingerprint[] = [];
  if (hashes.length === 0) return out;
  if (hashes.length <= w) {
    let min = 0;
    for (let i = 1; i < hashes.length; i++) if (hashes[i]! <= hashes[min]!) min = i;
    return [{ hash: hashes[min]!, at: min }];
  }
  let last = -1;
  for (let start = 0; start + w <= hashes.length; start++) {
    let min = start;
    for (let i = start + 1; i < start + w; i++) if (hashes[i]! <= hashes[min]!) min = i;
    if (min !== last) {
      out.push({ hash: hashes[min]!, at: min });
      last = min;
    }
  }
  return out;
}
