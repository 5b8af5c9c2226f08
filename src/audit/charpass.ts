// The one character-by-character pass of a scan: numeric literals (read by readNumber) and runs of
// 12 or more base64 characters (blob candidates). Everything else is found by native searches.
import { type NumberLiteral, newLiteral, readNumber, startsNumber } from "./numbers.ts";

/** 1: base64 character (letters, digits, + / _ -). */
const BASE64 = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const l = c | 32;
  if ((c >= 48 && c <= 57) || (l >= 97 && l <= 122) || c === 43 || c === 47 || c === 95 || c === 45)
    BASE64[c] = 1;
}
export const MIN_BASE64_RUN = 12;

export function charPass(
  text: string,
  delimiter: number,
  onNumber: ((lit: NumberLiteral) => void) | undefined,
  onRun: (start: number, end: number) => void,
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
      numbersUntil = readNumber(text, i, lit, delimiter);
      if (lit.end >= 0) onNumber(lit);
    }
  }
  if (length - runStart >= MIN_BASE64_RUN) onRun(runStart, length);
}
