// Obvious wrappers around gated content: base64 blobs, percent-encoding and HTML entities. Each found
// wrapper becomes a child view of the decoded text, mapped back to where the wrapper sits.
import { docOffset, normalise, type TextView } from "./normalise.ts";

/** Decoded text inside a view: `focus` is the decoded part (the rest is surrounding context). */
export interface DecodedView extends TextView {
  focus: [number, number];
}

const CONTEXT = 80;
const MIN_BASE64 = 8;
const BASE64_CHAR = /[A-Za-z0-9+/_-]/;

const ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
  percnt: "%",
  period: ".",
  comma: ",",
  colon: ":",
  sol: "/",
  minus: "-",
  plus: "+",
  times: "×",
  divide: "÷",
  equals: "=",
  dollar: "$",
  hyphen: "-",
  dash: "-",
  ndash: "-",
  mdash: "-",
  num: "#",
};

function printable(text: string): boolean {
  if (text.length < 3 || text.includes("\ufffd")) return false;
  let good = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c >= 32 && c < 127) || c === 9 || c === 10 || c === 13 || c >= 160) good++;
  }
  return good / text.length >= 0.95;
}

/** Blob candidates: the long runs the character pass found, and shorter runs padded with "=". */
export function base64Candidates(
  text: string,
  longRuns: ReadonlyArray<[number, number]>,
): Array<[number, number]> {
  const out: Array<[number, number]> = [...longRuns];
  for (let eq = text.indexOf("="); eq >= 0; eq = text.indexOf("=", eq + 1)) {
    let a = eq;
    while (a > 0 && BASE64_CHAR.test(text[a - 1]!)) a--;
    if (eq - a >= 4 && eq - a < 12) out.push([a, eq]);
  }
  return out.sort((x, y) => x[0] - y[0]);
}

/** The base64 blob around text[start, end), widened over base64 characters and padding. */
export function base64Span(text: string, start: number, end: number): [number, number] | undefined {
  let a = start;
  let b = end;
  while (a > 0 && BASE64_CHAR.test(text[a - 1]!)) a--;
  while (b < text.length && BASE64_CHAR.test(text[b]!)) b++;
  const padded = 4 * Math.ceil((b - a) / 4);
  while (b < text.length && text[b] === "=" && b - a < padded) b++;
  return b - a >= MIN_BASE64 ? [a, b] : undefined;
}

/** The decoded text of the blob text[a, b) as a child view, if it decodes to readable text. */
export function decodeBase64(view: TextView, a: number, b: number): DecodedView | undefined {
  const blob = view.text.slice(a, b);
  const decoded = Buffer.from(blob.replace(/-/g, "+").replace(/_/g, "/"), "base64").toString("utf8");
  if (!printable(decoded)) return undefined;
  const from = docOffset(view, a);
  const to = docOffset(view, b);
  const map = new Int32Array(decoded.length + 1).fill(from);
  map[decoded.length] = to;
  const child = normalise(decoded, [...view.via, "base64"], map);
  return { ...child, focus: [0, child.text.length] };
}

function decodePercent(run: string): string {
  try {
    return decodeURIComponent(run);
  } catch {
    return run.replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  }
}

function decodeEntity(entity: string): string | undefined {
  const body = entity.slice(1, -1);
  if (body[0] === "#") {
    const code =
      body[1] === "x" || body[1] === "X" ? Number.parseInt(body.slice(2), 16) : Number(body.slice(1));
    return Number.isInteger(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : undefined;
  }
  const name = body.toLowerCase();
  return Object.hasOwn(ENTITIES, name) ? ENTITIES[name] : undefined;
}

function isHexDigit(c: number): boolean {
  const l = c | 32;
  return (c >= 48 && c <= 57) || (l >= 97 && l <= 102);
}

/**
 * Where percent escapes (%41) start, as /%[0-9a-f]{2}/gi would match them: found with indexOf,
 * which skips to the next "%" far faster than a regex scans.
 */
function percentEscapes(text: string): number[] {
  const out: number[] = [];
  for (let at = text.indexOf("%"); at >= 0; at = text.indexOf("%", at + 1)) {
    if (isHexDigit(text.charCodeAt(at + 1)) && isHexDigit(text.charCodeAt(at + 2))) {
      out.push(at);
      at += 2;
    }
  }
  return out;
}

const TOKEN_CHAR = /[^\s"'<>]/;
const ENTITY_RUN = /(?:&(?:#\d{1,7}|#x[0-9a-f]{1,6}|[a-z]{2,8});)+/gi;
const ENTITY = /&(?:#\d{1,7}|#x[0-9a-f]{1,6}|[a-z]{2,8});/gi;

/** Child views for every percent-encoded run and HTML-entity run, each with surrounding context. */
export function inlineWrappers(view: TextView, focus?: [number, number]): DecodedView[] {
  const text = view.text;
  const out: DecodedView[] = [];
  const add = (start: number, end: number, decoded: string, kind: string) => {
    if (focus && (end <= focus[0] || start >= focus[1])) return;
    const left = Math.max(0, start - CONTEXT);
    const right = Math.min(text.length, end + CONTEXT);
    const composed = text.slice(left, start) + decoded + text.slice(end, right);
    const map = new Int32Array(composed.length + 1);
    let k = 0;
    for (let i = left; i < start; i++) map[k++] = docOffset(view, i);
    for (let i = 0; i < decoded.length; i++) map[k++] = docOffset(view, start);
    for (let i = end; i <= right; i++) map[k++] = docOffset(view, i);
    const focusFrom = start - left;
    const focusTo = focusFrom + decoded.length;
    // Normalise, then find where the focus landed through the new map.
    const child = normalise(composed, [...view.via, kind], map);
    const from = docOffset(view, start);
    const to = docOffset(view, end);
    let fa = 0;
    while (fa < child.text.length && docOffset(child, fa) < from) fa++;
    let fb = fa;
    while (fb < child.text.length && docOffset(child, fb) < to) fb++;
    out.push({ ...child, focus: focusTo > focusFrom ? [fa, Math.max(fb, fa + 1)] : [fa, fa] });
  };
  // A token (no spaces or quotes) holding percent escapes is decoded whole: "12%25" reads "12%".
  let tokenEnd = -1;
  for (const at of percentEscapes(text)) {
    if (at < tokenEnd) continue;
    let a = at;
    while (a > 0 && TOKEN_CHAR.test(text[a - 1]!)) a--;
    tokenEnd = at;
    while (tokenEnd < text.length && TOKEN_CHAR.test(text[tokenEnd]!)) tokenEnd++;
    const token = text.slice(a, tokenEnd);
    const decoded = decodePercent(token);
    if (decoded !== token) add(a, tokenEnd, decoded, "percent-encoding");
  }
  if (text.includes("&")) {
    for (const m of text.matchAll(ENTITY_RUN)) {
      const decoded = m[0].replace(ENTITY, (e) => decodeEntity(e) ?? e);
      if (decoded !== m[0]) add(m.index, m.index + m[0].length, decoded, "html-entities");
    }
  }
  return out;
}
