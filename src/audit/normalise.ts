// Text normalisation with an offset map: NFKC, case-fold, zero-width stripped, dashes/quotes/spaces unified.
/** A text the matchers read, with the way back to offsets in the document it came from. */
export interface TextView {
  /** Normalised text; ASCII letters may still be upper-case (matchers fold them on the fly). */
  text: string;
  /** Document offset of text[i]; length text.length + 1. Absent when offsets are the identity. */
  map?: Int32Array;
  /** Wrappers decoded to reach this text, outermost first (e.g. ["base64"]). */
  via: string[];
}

const ZERO_WIDTH = new Set([0x00ad, 0x200b, 0x200c, 0x200d, 0x2060, 0xfeff, 0x180e]);
const DASHES = new Set([0x2010, 0x2011, 0x2012, 0x2013, 0x2014, 0x2015, 0x2212, 0xfe58, 0xfe63, 0xff0d]);
const SINGLE_QUOTES = new Set([0x2018, 0x2019, 0x201a, 0x201b, 0x2032, 0x02bc]);
const DOUBLE_QUOTES = new Set([0x201c, 0x201d, 0x201e, 0x201f, 0x2033, 0x00ab, 0x00bb]);
const COMBINING = /\p{M}/u;
const cache = new Map<string, string>();

function normaliseCluster(cluster: string): string {
  const cp = cluster.codePointAt(0) ?? 0;
  if (cluster.length <= 2 && ZERO_WIDTH.has(cp)) return "";
  if (DASHES.has(cp)) return "-";
  if (SINGLE_QUOTES.has(cp)) return "'";
  if (DOUBLE_QUOTES.has(cp)) return '"';
  let out = cache.get(cluster);
  if (out === undefined) {
    out = cluster.normalize("NFKC").toLowerCase().replace(/ß/g, "ss").replace(/ς/g, "σ");
    // NFKC turns no-break and other spaces into U+0020 only sometimes; unify all of them.
    out = out.replace(/[\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]/g, " ");
    out = out.replace(/[\u2010-\u2015\u2212\ufe63\uff0d]/g, "-");
    if (cache.size < 10_000) cache.set(cluster, out);
  }
  return out;
}

/**
 * Normalises `text` (whose offsets are document offsets through `map`, or the identity). Pure-ASCII
 * text is returned as is: matchers fold ASCII case themselves, so no copy is made.
 */
export function normalise(text: string, via: string[] = [], map?: Int32Array, ascii?: boolean): TextView {
  if (ascii ?? isAsciiText(text)) return { text, map, via };
  const parts: string[] = [];
  const out = new Int32Array(text.length * 2 + 1);
  let length = 0;
  let i = 0;
  const push = (s: string, origin: number) => {
    if (s.length === 0) return;
    parts.push(s);
    if (length + s.length >= out.length) throw new Error("normalisation grew the text more than twice");
    for (let k = 0; k < s.length; k++) out[length + k] = origin;
    length += s.length;
  };
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c < 0x80) {
      // ASCII runs are copied in one go; a following combining mark joins the last ASCII char.
      let j = i + 1;
      while (j < text.length && text.charCodeAt(j) < 0x80) j++;
      const endRun =
        j < text.length && COMBINING.test(String.fromCodePoint(text.codePointAt(j)!)) ? j - 1 : j;
      if (endRun > i) {
        parts.push(text.slice(i, endRun));
        for (let k = i; k < endRun; k++) out[length++] = k;
      }
      i = endRun;
      if (i === j) continue;
    }
    // One cluster: a code point plus the combining marks that follow it.
    const start = i;
    i += (text.codePointAt(i) ?? 0) > 0xffff ? 2 : 1;
    while (i < text.length) {
      const next = text.codePointAt(i)!;
      if (!COMBINING.test(String.fromCodePoint(next))) break;
      i += next > 0xffff ? 2 : 1;
    }
    push(normaliseCluster(text.slice(start, i)), start);
  }
  out[length] = text.length;
  const normalised = parts.join("");
  const composed = new Int32Array(length + 1);
  for (let k = 0; k <= length; k++) composed[k] = map ? map[out[k]!]! : out[k]!;
  return { text: normalised, map: composed, via };
}

/** Normalises a pattern or keyword the way texts are normalised, then folds case and collapses spaces. */
export function normalisePattern(text: string): string {
  return normalise(text).text.toLowerCase().replace(/[*`]/g, "").replace(/\s+/g, " ").trim();
}

/** Document offset of view offset `i`. */
export function docOffset(view: TextView, i: number): number {
  return view.map ? view.map[Math.min(i, view.map.length - 1)]! : i;
}

/** True when every character is ASCII. */
export function isAsciiText(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}
