// Numeric literals in a text parsed to exact values: signs, thousands separators, decimals, exponents,
// percent / pct / per cent / basis points, and fractions a/b. One pass; no allocation per number.

export type NumberUnit = "none" | "percent" | "bp" | "fraction";

export interface NumberLiteral {
  /** The value the literal stands for, units applied ("12%" is 0.12, "3/25" is 0.12). */
  value: number;
  start: number;
  end: number;
  /** Half a unit of the last written digit, in value units (0 for fractions). */
  halfUnit: number;
  /** Significant digits written. */
  sig: number;
  unit: NumberUnit;
  /** Written in scientific notation (2.35e2). */
  sci: boolean;
  /** Written as a multiplier with an x right after or before it (1.12x, x1.12). */
  times: boolean;
  /** Spelled out in words ("twelve percent"). */
  words: boolean;
}

export interface NumberScanOptions {
  /** A table's field delimiter: never read as a thousands separator outside quotes. */
  delimiter?: string;
}

const POW10 = Array.from({ length: 23 }, (_, i) => 10 ** i);

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}
function isLetter(c: number): boolean {
  const l = c | 32;
  return (l >= 97 && l <= 122) || (c >= 0xc0 && c !== 0xd7 && c !== 0xf7);
}
function isWordChar(c: number): boolean {
  return isDigit(c) || isLetter(c);
}
function isBlank(c: number): boolean {
  return c === 32 || c === 9 || c === 42 || c === 96;
}

function pow10(n: number): number {
  return POW10[n] ?? 10 ** n;
}

/** True when the text at `at` starts with `word` (ASCII, case-insensitive) followed by a non-letter. */
export function wordAt(text: string, at: number, word: string): boolean {
  for (let k = 0; k < word.length; k++) {
    if ((text.charCodeAt(at + k) | 32) !== word.charCodeAt(k)) return false;
  }
  return !isLetter(text.charCodeAt(at + word.length));
}

/** Whether text[at] is inside double quotes on its line (a quoted table cell). */
export function insideQuotes(text: string, at: number): boolean {
  let quotes = 0;
  for (let k = at - 1; k >= 0; k--) {
    const c = text.charCodeAt(k);
    if (c === 10) break;
    if (c === 34) quotes++;
  }
  return quotes % 2 === 1;
}

/** Reads the unit after a number (after blanks): returns [unit, end] or undefined. */
export function unitAfter(text: string, at: number): [NumberUnit, number] | undefined {
  let k = at;
  while (k < text.length && isBlank(text.charCodeAt(k))) k++;
  const c = text.charCodeAt(k);
  if (c === 37 || c === 0xff05) return ["percent", k + 1];
  const l = c | 32;
  if (l !== 112 && l !== 98) return undefined; // every unit word starts with p or b
  if (wordAt(text, k, "percent")) return ["percent", k + 7];
  if (wordAt(text, k, "pct")) return ["percent", k + 3];
  if (wordAt(text, k, "per")) {
    let m = k + 3;
    while (text.charCodeAt(m) === 32) m++;
    if (wordAt(text, m, "cent")) return ["percent", m + 4];
  }
  if (wordAt(text, k, "bps")) return ["bp", k + 3];
  if (wordAt(text, k, "bp")) return ["bp", k + 2];
  if (wordAt(text, k, "basis")) {
    let m = k + 5;
    while (text.charCodeAt(m) === 32) m++;
    if (wordAt(text, m, "points")) return ["bp", m + 6];
    if (wordAt(text, m, "point")) return ["bp", m + 5];
  }
  return undefined;
}

/** Applies a unit to a literal's value and precision. */
export function applyUnit(lit: NumberLiteral, unit: NumberUnit, end: number): void {
  // Dividing keeps "1200 bp" exactly 0.12 (multiplying by 0.0001 would not).
  const divisor = unit === "percent" ? 100 : unit === "bp" ? 10_000 : 1;
  lit.value /= divisor;
  lit.halfUnit /= divisor;
  lit.unit = unit;
  lit.end = end;
}

/** A fresh literal to pass to readNumber. */
export function newLiteral(): NumberLiteral {
  return {
    value: 0,
    start: 0,
    end: -1,
    halfUnit: 0,
    sig: 0,
    unit: "none",
    sci: false,
    times: false,
    words: false,
  };
}

function digitsAt(text: string, at: number, n: number): boolean {
  for (let k = 0; k < n; k++) if (!isDigit(text.charCodeAt(at + k))) return false;
  return true;
}

/** The end of a clock time h:mm, hh:mm, hh:mm:ss or hh:mm:ss.fff at `at`, or -1. */
function timeEnd(text: string, at: number): number {
  const hour = isDigit(text.charCodeAt(at + 1)) ? 2 : 1;
  if (!isDigit(text.charCodeAt(at)) || text.charCodeAt(at + hour) !== 58 || !digitsAt(text, at + hour + 1, 2))
    return -1;
  let end = at + hour + 3;
  if (text.charCodeAt(end) === 58 && digitsAt(text, end + 1, 2)) {
    end += 3;
    if (text.charCodeAt(end) === 46 && isDigit(text.charCodeAt(end + 1))) {
      end++;
      while (isDigit(text.charCodeAt(end))) end++;
    }
  }
  return isDigit(text.charCodeAt(end)) ? -1 : end;
}

/**
 * The end of an ISO date (2025-11-20, or a month 2026-04), with a time after T or a space, or of
 * a clock time (06:03) at `at`; -1 when there is none. Dates and times are not numbers.
 */
export function dateOrTimeEnd(text: string, at: number): number {
  if (digitsAt(text, at, 4) && text.charCodeAt(at + 4) === 45 && digitsAt(text, at + 5, 2)) {
    let end = at + 7;
    if (text.charCodeAt(end) === 45 && digitsAt(text, end + 1, 2)) end += 3;
    if (isDigit(text.charCodeAt(end))) return -1;
    const sep = text.charCodeAt(end);
    if (sep === 84 || sep === 116 || sep === 32) {
      const time = timeEnd(text, end + 1);
      if (time >= 0) end = time;
    }
    return end;
  }
  return timeEnd(text, at);
}

/** True when a number starts at text[i] (a digit, or a point before a digit after a non-digit). */
export function startsNumber(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  return isDigit(c) || (c === 46 && isDigit(text.charCodeAt(i + 1)) && !isDigit(text.charCodeAt(i - 1)));
}

/**
 * Reads the number starting at text[i] (see startsNumber) into `lit`; lit.end is -1 when what is
 * there is not a number (an identifier, a version, a date). Returns where reading may go on.
 */
export function readNumber(
  text: string,
  i: number,
  lit: NumberLiteral,
  delimiter = -1,
  from = 0,
  to = text.length,
): number {
  lit.end = -1;
  const before = i > from ? text.charCodeAt(i - 1) : -1;
  const xPrefix = (before | 32) === 120 && !isLetter(i - 2 >= from ? text.charCodeAt(i - 2) : -1);
  if (isLetter(before) && !xPrefix) {
    // Part of an identifier (A12, v2): skip the whole word (past the point of "M.5").
    let j = i + 1;
    while (j < to && isWordChar(text.charCodeAt(j))) j++;
    return j;
  }
  const dateEnd = isDigit(before) ? -1 : dateOrTimeEnd(text, i);
  if (dateEnd >= 0) return dateEnd;
  if (before === 45 && i - 2 >= from && isLetter(text.charCodeAt(i - 2))) {
    // A letter, a hyphen, digits: an identifier (INV-4200, ISO-9001), not the number -4200, unless
    // a decimal point or a unit follows the digits ("rate-0.12", "overhead-12%").
    let j = i;
    while (j < to && isDigit(text.charCodeAt(j))) j++;
    const decimal = text.charCodeAt(j) === 46 && isDigit(text.charCodeAt(j + 1));
    if (!decimal && !unitAfter(text, j)) {
      while (j < to && isWordChar(text.charCodeAt(j))) j++;
      return j;
    }
  }
  let start = i;
  let negative = false;
  if ((before === 45 || before === 43) && i - 1 >= from) {
    const b2 = i - 2 >= from ? text.charCodeAt(i - 2) : -1;
    if (!isWordChar(b2) && b2 !== 41 && b2 !== 93 && b2 !== 46) {
      negative = before === 45;
      start = i - 1;
    }
  }
  // Mantissa: integer digits with optional thousands separators, then decimals.
  let mantissa = 0;
  let digits = 0;
  let sig = 0;
  let decimals = 0;
  let intDigits = 0;
  let groupLen = 0;
  let grouped = false;
  let j = i;
  while (j < to) {
    const d = text.charCodeAt(j);
    if (isDigit(d)) {
      if (sig > 0 || d !== 48) sig++;
      if (digits < 16) mantissa = mantissa * 10 + (d - 48);
      else decimals--; // beyond double precision: keep the magnitude
      digits++;
      intDigits++;
      groupLen++;
      j++;
      continue;
    }
    const isSep = d === 44 || d === 95;
    if (
      isSep &&
      groupLen > 0 &&
      (grouped ? groupLen === 3 : groupLen <= 3) &&
      isDigit(text.charCodeAt(j + 1)) &&
      isDigit(text.charCodeAt(j + 2)) &&
      isDigit(text.charCodeAt(j + 3)) &&
      !isDigit(text.charCodeAt(j + 4)) &&
      (d !== delimiter || insideQuotes(text, j))
    ) {
      grouped = true;
      groupLen = 0;
      j++;
      continue;
    }
    break;
  }
  if (grouped && groupLen !== 3) {
    // "1,2345" is not a grouped number: read only the first group.
    j = i;
    mantissa = 0;
    digits = sig = intDigits = 0;
    while (isDigit(text.charCodeAt(j)) && j < to) {
      const d = text.charCodeAt(j);
      if (sig > 0 || d !== 48) sig++;
      mantissa = mantissa * 10 + (d - 48);
      digits++;
      intDigits++;
      j++;
    }
    grouped = false;
  }
  if (text.charCodeAt(j) === 46 && isDigit(text.charCodeAt(j + 1)) && j + 1 < to) {
    j++;
    while (j < to && isDigit(text.charCodeAt(j))) {
      const d = text.charCodeAt(j);
      if (sig > 0 || d !== 48) sig++;
      if (digits < 16) {
        mantissa = mantissa * 10 + (d - 48);
        decimals++;
      }
      digits++;
      j++;
    }
  }
  // Exponent.
  let exponent = 0;
  let sci = false;
  const e = text.charCodeAt(j) | 32;
  if (e === 101) {
    let m = j + 1;
    let expNegative = false;
    const s = text.charCodeAt(m);
    if (s === 45 || s === 43) {
      expNegative = s === 45;
      m++;
    }
    if (isDigit(text.charCodeAt(m))) {
      let x = 0;
      while (m < to && isDigit(text.charCodeAt(m))) x = x * 10 + (text.charCodeAt(m++) - 48);
      if (!isLetter(text.charCodeAt(m))) {
        exponent = expNegative ? -x : x;
        sci = true;
        j = m;
      }
    }
  }
  // Glued letters: a multiplier x, a unit, or an identifier such as 3rd or 12px (not a number).
  let times = false;
  const after = text.charCodeAt(j);
  if (isLetter(after)) {
    if ((after | 32) === 120 && !isLetter(text.charCodeAt(j + 1))) {
      times = true;
    } else if (!unitAfter(text, j)) {
      while (j < to && isWordChar(text.charCodeAt(j))) j++;
      return j;
    }
  }
  if (isDigit(after) || (after === 46 && isDigit(text.charCodeAt(j + 1)))) {
    // "1.2.3" and similar dotted sequences are versions or dates, not numbers.
    while (j < to && (isDigit(text.charCodeAt(j)) || text.charCodeAt(j) === 46)) j++;
    return j;
  }
  const power = exponent - decimals;
  const signed = negative ? -mantissa : mantissa;
  // Dividing by an exact power of ten gives the double nearest the written decimal.
  lit.value = power >= 0 ? signed * pow10(power) : signed / pow10(-power);
  lit.start = start;
  lit.end = times ? j + 1 : j;
  lit.halfUnit = power >= 0 ? 0.5 * pow10(power) : 0.5 / pow10(-power);
  lit.sig = sig;
  lit.unit = "none";
  lit.sci = sci;
  lit.times = times || xPrefix || before === 0xd7;
  lit.words = false;
  // Fraction a/b (not a date such as 3/25/2024 or 2024/3/25).
  const b1 = text.charCodeAt(start - 1);
  if (
    decimals === 0 &&
    !sci &&
    !grouped &&
    !negative &&
    !times &&
    !(b1 === 47 && isDigit(text.charCodeAt(start - 2)))
  ) {
    let m = j;
    while (text.charCodeAt(m) === 32) m++;
    if (text.charCodeAt(m) === 47 || text.charCodeAt(m) === 0x2044) {
      m++;
      while (text.charCodeAt(m) === 32) m++;
      let denominator = 0;
      let denDigits = 0;
      while (m < to && isDigit(text.charCodeAt(m)) && denDigits < 15) {
        denominator = denominator * 10 + (text.charCodeAt(m++) - 48);
        denDigits++;
      }
      const trailing = text.charCodeAt(m);
      const isDate = trailing === 47 && isDigit(text.charCodeAt(m + 1));
      if (denDigits > 0 && denominator !== 0 && !isDate && !isWordChar(trailing) && trailing !== 46) {
        lit.value = mantissa / denominator;
        lit.halfUnit = 0;
        lit.unit = "fraction";
        lit.end = m;
        return m;
      }
      if (isDate) {
        while (m < to && (isDigit(text.charCodeAt(m)) || text.charCodeAt(m) === 47)) m++;
        lit.end = -1;
        return m;
      }
    }
  }
  const unit = times ? undefined : unitAfter(text, j);
  if (unit) applyUnit(lit, unit[0], unit[1]);
  return Math.max(j, i + 1, lit.end);
}

/** Calls `onNumber` for every numeric literal in text[from, to); the literal object is reused. */
export function scanNumbers(
  text: string,
  onNumber: (lit: NumberLiteral) => void,
  options: NumberScanOptions = {},
  from = 0,
  to = text.length,
): void {
  const delimiter = options.delimiter?.charCodeAt(0) ?? -1;
  const lit = newLiteral();
  let i = from;
  while (i < to) {
    if (!startsNumber(text, i)) {
      i++;
      continue;
    }
    i = readNumber(text, i, lit, delimiter, from, to);
    if (lit.end >= 0) onNumber(lit);
  }
}
