// The one character-by-character pass of a scan: numeric literals (read by readNumber) and runs of
// 12 or more base64 characters (blob candidates). Everything else is found by native searches.
// A number whose first two significant digits no gated form can show is skipped unread (units,
// exponents and thousands separators do not change them; a fraction a/b is always read).
import { type NumberLiteral, newLiteral, readNumber, startsNumber } from "./numbers.ts";

/** 1: base64 character (letters, digits, + / _ -). */
const BASE64 = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const l = c | 32;
  if ((c >= 48 && c <= 57) || (l >= 97 && l <= 122) || c === 43 || c === 47 || c === 95 || c === 45)
    BASE64[c] = 1;
}
export const MIN_BASE64_RUN = 12;

/**
 * The leading code (see leadingCode) of the digits and points starting at text[i], and where they
 * end; -1 when a separator follows (1,200 or 1_000: the code is not known without reading it).
 */
function leading(text: string, i: number): { code: number; end: number } {
  let d1 = -1;
  let d2 = -1;
  let k = i;
  for (; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (c >= 48 && c <= 57) {
      if (d1 < 0) {
        if (c !== 48) d1 = c - 48;
      } else if (d2 < 0) d2 = c - 48;
    } else if (c !== 46) break;
  }
  const stop = text.charCodeAt(k);
  const next = text.charCodeAt(k + 1);
  if ((stop === 44 || stop === 95) && next >= 48 && next <= 57) return { code: -1, end: k };
  return { code: d1 < 0 ? 0 : d1 * 10 + Math.max(d2, 0), end: k };
}

function fractionAfter(text: string, end: number): boolean {
  let k = end;
  while (text.charCodeAt(k) === 32) k++;
  const c = text.charCodeAt(k);
  return c === 47 || c === 0x2044;
}

export function charPass(
  text: string,
  delimiter: number,
  onNumber: ((lit: NumberLiteral) => void) | undefined,
  onRun: (start: number, end: number) => void,
  codes?: Uint8Array,
): void {
  const lit = newLiteral();
  const length = text.length;
  let runStart = 0;
  let numbersUntil = 0;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 128 || BASE64[c] === 0) {
      if (i - runStart >= MIN_BASE64_RUN) onRun(runStart, i);
      runStart = i + 1;
      if (c !== 46) continue;
    }
    if (
      onNumber !== undefined &&
      i >= numbersUntil &&
      ((c >= 48 && c <= 57) || c === 46) &&
      startsNumber(text, i)
    ) {
      if (codes !== undefined) {
        const { code, end } = leading(text, i);
        if (code >= 0 && codes[code] === 0 && !fractionAfter(text, end)) {
          numbersUntil = end;
          continue;
        }
      }
      numbersUntil = readNumber(text, i, lit, delimiter);
      if (lit.end >= 0) onNumber(lit);
    }
  }
  if (length - runStart >= MIN_BASE64_RUN) onRun(runStart, length);
}
