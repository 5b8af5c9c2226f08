// The one character-by-character pass of a scan. It splits the text into words and reads, in the
// same loop: numeric literals (by readNumber), words (those a WordTable knows, or all of them), and
// runs of 12 or more base64 characters (blob candidates). A word starts with a letter; a token that
// starts with a digit is a number (12px, 3rd included) and never a word.
// A number whose first three significant digits no gated form can show is skipped unread (units,
// exponents and thousands separators do not change them; a fraction a/b is always read).
import { type NumberLiteral, newLiteral, readNumber } from "./numbers.ts";
import { isWordCode, type WordTable } from "./words.ts";

export const MIN_BASE64_RUN = 12;

/** Character classes of the codes below 128. */
const LETTER = 1;
const DIGIT = 2;
const BASE64 = 4;
/**
 * The classes of the codes below 128, then each word character lower-cased (0 for others): the
 * tables the WebAssembly pass reads too.
 */
export const ASCII_TABLES = new Uint8Array(256);
for (let c = 0; c < 128; c++) {
  const l = c | 32;
  if (l >= 97 && l <= 122) ASCII_TABLES[c] = LETTER | BASE64;
  else if (c >= 48 && c <= 57) ASCII_TABLES[c] = DIGIT | BASE64;
  else if (c === 43 || c === 47 || c === 95 || c === 45) ASCII_TABLES[c] = BASE64;
  if (ASCII_TABLES[c]! & (LETTER | DIGIT)) ASCII_TABLES[128 + c] = c >= 65 && c <= 90 ? c | 32 : c;
}
const CLASS = ASCII_TABLES.subarray(0, 128);
/** Non-ASCII letters and digits are word characters (letters) but never base64; -1 (no character) is 0. */
function classOf(c: number): number {
  return c < 0 ? 0 : c < 128 ? CLASS[c]! : isWordCode(c) ? LETTER : 0;
}

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

export interface WordSink {
  word(hash: number, start: number, end: number): void;
}

export interface TokenPassOptions {
  /** A table's field delimiter (never a thousands separator outside quotes), or -1. */
  delimiter: number;
  /** Receives each numeric literal (the object is reused); absent: numbers are not read. */
  onNumber?: (lit: NumberLiteral) => void;
  /** Leading-digit codes (FormIndex.codes) of the numbers worth reading; absent: read them all. */
  codes?: Uint8Array;
  /** Words to look up: `onWord` receives those in the table with their flags, hash and span. */
  words?: WordTable;
  onWord?: (flags: number, hash: number, start: number, end: number) => void;
  /** Receives every word (hash as wordHash computes it, and span): called for each, kept cheap. */
  everyWord?: WordSink;
  /** Receives each run of at least MIN_BASE64_RUN base64 characters. */
  onRun: (start: number, end: number) => void;
}

/** text[at], or -1 outside the text (an out-of-bounds read would deoptimise the pass). */
function codeAt(text: string, at: number): number {
  return at >= 0 && at < text.length ? text.charCodeAt(at) : -1;
}

function fractionAfter(text: string, end: number): boolean {
  let k = end;
  while (codeAt(text, k) === 32) k++;
  const c = codeAt(text, k);
  return c === 47 || c === 0x2044;
}

export function tokenPass(text: string, options: TokenPassOptions): void {
  const { delimiter, onNumber, codes, words, onWord, everyWord, onRun } = options;
  const lit = newLiteral();
  const length = text.length;
  let runStart = 0;
  let numbersUntil = 0;
  /** Inside double quotes on this line (a quoted table cell). */
  let quoted = false;
  let i = 0;
  // Every variable the loop writes is local to this function (no closure): V8 keeps them in registers.
  while (i < length) {
    let c = text.charCodeAt(i);
    let k = classOf(c);
    /** Where a number starts, if one does here. */
    let at = -1;
    if ((k & (LETTER | DIGIT)) === 0) {
      if ((k & BASE64) === 0) {
        if (i - runStart >= MIN_BASE64_RUN) onRun(runStart, i);
        runStart = i + 1;
        if (c === 34) quoted = !quoted;
        else if (c === 10) quoted = false;
        // A point before a digit after a non-digit starts a number (.5).
        const next = codeAt(text, i + 1);
        const prev = codeAt(text, i - 1);
        if (c === 46 && next >= 48 && next <= 57 && !(prev >= 48 && prev <= 57)) at = i;
      }
      if (at < 0) {
        i++;
        continue;
      }
    } else if (k & DIGIT) {
      at = i;
    } else if (
      (c | 32) === 120 &&
      (classOf(codeAt(text, i + 1)) & DIGIT) !== 0 &&
      (i === 0 || (classOf(codeAt(text, i - 1)) & LETTER) === 0)
    ) {
      // A multiplier written x1.12.
      at = i + 1;
    } else {
      const start = i;
      let h = FNV_OFFSET;
      do {
        if ((k & BASE64) === 0) {
          if (i - runStart >= MIN_BASE64_RUN) onRun(runStart, i);
          runStart = i + 1;
        }
        h = Math.imul(h ^ (c >= 65 && c <= 90 ? c | 32 : c), FNV_PRIME);
        i++;
        if (i >= length) break;
        c = text.charCodeAt(i);
        k = classOf(c);
      } while ((k & (LETTER | DIGIT)) !== 0);
      if (words !== undefined) {
        const flags = words.lookup(h, text, start, i);
        if (flags !== 0) onWord!(flags, h, start, i);
      }
      everyWord?.word(h, start, i);
      continue;
    }
    // A number: its digits and points, and the code of its first three significant digits.
    let code = 0;
    let sig = 0;
    let end = at;
    for (; end < length; end++) {
      const d = text.charCodeAt(end);
      if (d >= 48 && d <= 57) {
        if (sig > 0 || d !== 48) {
          if (sig < 3) code = code * 10 + d - 48;
          sig++;
        }
      } else if (d === 46) {
        // Points end base64 runs.
        if (end - runStart >= MIN_BASE64_RUN) onRun(runStart, end);
        runStart = end + 1;
      } else break;
    }
    for (let s = sig; s > 0 && s < 3; s++) code *= 10;
    // Read it, or skip it unread when no gated form starts with its code. The code is not known
    // before a thousands separator (1,200 or 1_000; a table's delimiter outside quotes is none),
    // and dates and times (2025-11-20, 06:03) are read to be skipped whole.
    const stop = codeAt(text, end);
    const next = codeAt(text, end + 1);
    const nextIsDigit = next >= 48 && next <= 57;
    const unknown =
      nextIsDigit &&
      (((stop === 44 || stop === 95) && (stop !== delimiter || quoted)) || stop === 45 || stop === 58);
    if (
      onNumber !== undefined &&
      at >= numbersUntil &&
      (codes === undefined || unknown || codes[code] !== 0 || fractionAfter(text, end))
    ) {
      numbersUntil = readNumber(text, at, lit, delimiter);
      if (lit.end >= 0) onNumber(lit);
    }
    // The rest of the token (12px, 3rd) belongs to the number and is not a word.
    i = end;
    while (i < length) {
      c = text.charCodeAt(i);
      k = classOf(c);
      if ((k & (LETTER | DIGIT)) === 0) break;
      if ((k & BASE64) === 0) {
        if (i - runStart >= MIN_BASE64_RUN) onRun(runStart, i);
        runStart = i + 1;
      }
      i++;
    }
  }
  if (length - runStart >= MIN_BASE64_RUN) onRun(runStart, length);
}
