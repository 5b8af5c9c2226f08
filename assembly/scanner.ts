// The leak audit's word pass compiled to WebAssembly (AssemblyScript): the same tokens, numbers,
// words and base64 runs as src/audit/token-pass.ts, for large texts. It writes events into memory
// for src/audit/wasm-pass.ts to act on. Build: `npm run build:wasm` (writes src/audit/scanner.wasm).
// Events are 4 i32: kind, a, b, c. NUMBER(at), DATE(at, end) for an ISO date or clock time (not a
// number), WORD(hash, start, end) for a word whose hash is in the table, RUN(start, end) for a base64
// run, SHINGLE(hash, count, end) for a window that passes the prose filter (the scan then stops so
// its caller can read the ring of the last k words).
// A date or time is skipped here, its inner numbers unreported, when no NUMBER event came before it
// on its line: the caller's readNumber never reads across a line break, so it would skip them too.
// After a NUMBER event on the line the caller decides (DATE event, inner numbers reported).
// findNeedles, at the end, is the keyword search of src/audit/wasm-pass.ts's eachNeedle.

@external("env", "wordChar")
declare function wordChar(c: i32): i32;

const LETTER: i32 = 1;
const DIGIT: i32 = 2;
const BASE64: i32 = 4;
const MIN_BASE64_RUN: i32 = 12;
const FNV_OFFSET: i32 = 0x811c9dc5;
const FNV_PRIME: i32 = 0x01000193;
const BASE: i32 = 0x9e3779b1;
const FILTER_SHIFT: u32 = 11; // 32 - FILTER_BITS (21)
const VOCABULARY_SHIFT: u32 = 16; // 32 - VOCABULARY_BITS (16)
const VOCABULARY_OFFSET: usize = 1 << 18; // the window filter's bytes

export const EVENT_NUMBER: i32 = 1;
export const EVENT_WORD: i32 = 2;
export const EVENT_RUN: i32 = 3;
export const EVENT_SHINGLE: i32 = 4;
export const EVENT_DATE: i32 = 5;

// Layout, set by configure(): tables the caller fills, then the ring, the events and the text.
let classAt: usize = 0; // u8[128]: character classes of ASCII, then u8[128]: word characters lower-cased (0: not one)
let codesAt: usize = 0; // u8[1000]: leading-digit codes worth reading
let readNumbers: bool = false;
let filterCodes: bool = false;
let tableAt: usize = 0; // i32 hash[size], then u8 used[size]
let tableMask: i32 = -1; // size - 1, or -1 without a table
let filterAt: usize = 0; // u32[65536]: prose window filter, then u32[2048]: vocabulary filter
let k: i32 = 0; // prose window in words, 0 without shingles
let topPower: i32 = 0;
let ringAt: usize = 0; // i32 hash[k], i32 start[k], i32 end[k]
let eventsAt: usize = 0;
let eventsCap: i32 = 0;
let textAt: usize = 0;
let length: i32 = 0;
let delimiter: i32 = -1;
let linesAt: usize = 0; // i32[linesCap]: where each line after the first starts
let linesCap: i32 = 0;

// Scan state.
let pos: i32 = 0;
let runStart: i32 = 0;
let quoted: bool = false;
let count: i32 = 0;
/** Words in a row the vocabulary filter may hold (only such a run of k is a window worth a lookup). */
let known: i32 = 0;
let slot: i32 = 0;
let h: i32 = 0;
let events: i32 = 0;
let lines: i32 = 0;
/** A NUMBER event was written since the last line break. */
let numberOnLine: bool = false;
/** Numbers starting before this are inside a date or time skipped here. */
let datesUntil: i32 = 0;

let lowerAt: usize = 0;

export function configure(
  classes: usize,
  codes: usize,
  numbers: bool,
  useCodes: bool,
  table: usize,
  mask: i32,
  filter: usize,
  window: i32,
  power: i32,
  ring: usize,
  eventBuffer: usize,
  capacity: i32,
): void {
  classAt = classes;
  lowerAt = classes + 128;
  codesAt = codes;
  readNumbers = numbers;
  filterCodes = useCodes;
  tableAt = table;
  tableMask = mask;
  filterAt = filter;
  k = window;
  topPower = power;
  ringAt = ring;
  eventsAt = eventBuffer;
  eventsCap = capacity;
}

/**
 * Starts a text of `n` characters at `at` (u8 or u16 each, as scan8 or scan16 will read them); the
 * starts of its lines go to `lineBuffer` (up to `lineCapacity` of them).
 */
export function begin(at: usize, n: i32, delim: i32, lineBuffer: usize, lineCapacity: i32): void {
  textAt = at;
  length = n;
  delimiter = delim;
  linesAt = lineBuffer;
  linesCap = lineCapacity;
  lines = 0;
  pos = 0;
  runStart = 0;
  quoted = false;
  count = 0;
  known = 0;
  slot = 0;
  h = 0;
  numberOnLine = false;
  datesUntil = 0;
}

/** Line breaks seen so far (more than the line buffer holds when it overflowed). */
export function lineCount(): i32 {
  return lines;
}

export function position(): i32 {
  return pos;
}

/** Index in the ring of the oldest of the last k words. */
export function ringSlot(): i32 {
  return slot;
}

@inline
function emit(kind: i32, a: i32, b: i32, c: i32): void {
  const at = eventsAt + (<usize>events << 4);
  store<i32>(at, kind);
  store<i32>(at, a, 4);
  store<i32>(at, b, 8);
  store<i32>(at, c, 12);
  events++;
}

@inline
function charAt<T>(i: i32): i32 {
  return i >= 0 && i < length ? <i32>load<T>(textAt + (<usize>i << alignof<T>())) : -1;
}

/** text[i] for an i known to be inside the text. */
@inline
function raw<T>(i: i32): i32 {
  return <i32>load<T>(textAt + (<usize>i << alignof<T>()));
}

/** The class of a character (c >= 0) of a u8 or u16 text (u8 texts are all ASCII: see scan8). */
@inline
function classOf<T>(c: i32): i32 {
  if (sizeof<T>() == 1 || c < 128) return <i32>load<u8>(classAt + <usize>c);
  return wordChar(c) ? LETTER : 0;
}

/** The class of charAt's result (-1: no character). */
@inline
function classOrNone<T>(c: i32): i32 {
  return c < 0 ? 0 : classOf<T>(c);
}

@inline
function isDigit(c: i32): bool {
  return c >= 48 && c <= 57;
}

function fractionAfter<T>(end: i32): bool {
  let j = end;
  while (charAt<T>(j) == 32) j++;
  const c = charAt<T>(j);
  return c == 47 || c == 0x2044;
}

function inTable(hash: i32): bool {
  if (tableMask < 0) return false;
  const used = tableAt + (<usize>(tableMask + 1) << 2);
  for (let s = hash & tableMask; load<u8>(used + <usize>s) != 0; s = (s + 1) & tableMask) {
    if (load<i32>(tableAt + (<usize>s << 2)) == hash) return true;
  }
  return false;
}

function digitsAt<T>(at: i32, n: i32): bool {
  for (let j = 0; j < n; j++) if (!isDigit(charAt<T>(at + j))) return false;
  return true;
}

/** As timeEnd in src/audit/numbers.ts: a clock time h:mm, hh:mm(:ss(.fff)) at `at`, or -1. */
function timeEnd<T>(at: i32): i32 {
  const hour = isDigit(charAt<T>(at + 1)) ? 2 : 1;
  if (!isDigit(charAt<T>(at)) || charAt<T>(at + hour) != 58 || !digitsAt<T>(at + hour + 1, 2)) return -1;
  let end = at + hour + 3;
  if (charAt<T>(end) == 58 && digitsAt<T>(end + 1, 2)) {
    end += 3;
    if (charAt<T>(end) == 46 && isDigit(charAt<T>(end + 1))) {
      end++;
      while (isDigit(charAt<T>(end))) end++;
    }
  }
  return isDigit(charAt<T>(end)) ? -1 : end;
}

/** As dateOrTimeEnd in src/audit/numbers.ts: the end of an ISO date (with a time) or a time, or -1. */
function dateOrTimeEnd<T>(at: i32): i32 {
  if (digitsAt<T>(at, 4) && charAt<T>(at + 4) == 45 && digitsAt<T>(at + 5, 2)) {
    let end = at + 7;
    if (charAt<T>(end) == 45 && digitsAt<T>(end + 1, 2)) end += 3;
    if (isDigit(charAt<T>(end))) return -1;
    const sep = charAt<T>(end);
    if (sep == 84 || sep == 116 || sep == 32) {
      const time = timeEnd<T>(end + 1);
      if (time >= 0) end = time;
    }
    return end;
  }
  return timeEnd<T>(at);
}

/** A non-ASCII letter at text[i] (c): it ends a base64 run; the word hash takes it as it is. */
function nonAsciiLetter(i: i32, c: i32): i32 {
  if (i - runStart >= MIN_BASE64_RUN) emit(EVENT_RUN, runStart, i, 0);
  runStart = i + 1;
  return c;
}

/** Scans on from position(); returns the number of events written (stops early when full). */
function scan<T>(): i32 {
  const n = length;
  events = 0;
  let i = pos;
  // Leave room for the events one token can write (a run, a word, a shingle; or a number).
  const room = eventsCap - 4;
  while (i < n && events < room) {
    let c = raw<T>(i);
    let kind = classOf<T>(c);
    let at = -1;
    if ((kind & (LETTER | DIGIT)) == 0) {
      if ((kind & BASE64) == 0) {
        if (i - runStart >= MIN_BASE64_RUN) emit(EVENT_RUN, runStart, i, 0);
        runStart = i + 1;
        if (c == 34) quoted = !quoted;
        else if (c == 10) {
          quoted = false;
          numberOnLine = false;
          if (lines < linesCap) store<i32>(linesAt + (<usize>lines << 2), i + 1);
          lines++;
        }
        if (c == 46 && isDigit(charAt<T>(i + 1)) && !isDigit(charAt<T>(i - 1))) at = i;
      }
      if (at < 0) {
        i++;
        continue;
      }
    } else if ((kind & DIGIT) != 0) {
      at = i;
    } else if (
      (c | 32) == 120 &&
      (classOrNone<T>(charAt<T>(i + 1)) & DIGIT) != 0 &&
      (i == 0 || (classOrNone<T>(charAt<T>(i - 1)) & LETTER) == 0)
    ) {
      at = i + 1;
    } else {
      const start = i;
      let hash = FNV_OFFSET;
      // The hot loop: ASCII word characters are all base64 characters, and fold through a table.
      let folded = sizeof<T>() == 1 || c < 128 ? <i32>load<u8>(lowerAt + <usize>c) : nonAsciiLetter(i, c);
      do {
        hash = (hash ^ folded) * FNV_PRIME;
        i++;
        if (i >= n) break;
        c = raw<T>(i);
        folded =
          sizeof<T>() == 1 || c < 128
            ? <i32>load<u8>(lowerAt + <usize>c)
            : classOf<T>(c) != 0
              ? nonAsciiLetter(i, c)
              : 0;
      } while (folded != 0);
      if (inTable(hash)) emit(EVENT_WORD, hash, start, i);
      if (k > 0) {
        // Only a word the vocabulary filter may hold goes into the ring and the window hash: a
        // window is looked up only when its k words all do (the ring holds them then). Until k
        // known words are in a row, h is the hash of those so far.
        const word = <u32>hash >> VOCABULARY_SHIFT;
        const vocabulary = filterAt + VOCABULARY_OFFSET + (<usize>(word >> 5) << 2);
        if ((load<u32>(vocabulary) & (<u32>1 << (word & 31))) != 0) {
          const out = known >= k ? load<i32>(ringAt + (<usize>slot << 2)) : 0;
          h = (h - out * topPower) * BASE + hash;
          store<i32>(ringAt + (<usize>slot << 2), hash);
          store<i32>(ringAt + (<usize>(k + slot) << 2), start);
          store<i32>(ringAt + (<usize>(2 * k + slot) << 2), i);
          known++;
        } else {
          known = 0;
          h = 0;
        }
        slot = slot + 1 == k ? 0 : slot + 1;
        count++;
        if (known >= k) {
          const bit = <u32>h >> FILTER_SHIFT;
          if ((load<u32>(filterAt + (<usize>(bit >> 5) << 2)) & (<u32>1 << (bit & 31))) != 0) {
            emit(EVENT_SHINGLE, h, count, i);
            break;
          }
        }
      }
      continue;
    }
    // A number: digits and points, the code of its first three significant digits.
    let code = 0;
    let sig = 0;
    let end = at;
    for (; end < n; end++) {
      const d = raw<T>(end);
      if (isDigit(d)) {
        if (sig > 0 || d != 48) {
          if (sig < 3) code = code * 10 + d - 48;
          sig++;
        }
      } else if (d == 46) {
        if (end - runStart >= MIN_BASE64_RUN) emit(EVENT_RUN, runStart, end, 0);
        runStart = end + 1;
      } else break;
    }
    for (let s = sig; s > 0 && s < 3; s++) code *= 10;
    const stop = charAt<T>(end);
    const nextIsDigit = isDigit(charAt<T>(end + 1));
    const unknown =
      nextIsDigit && ((((stop == 44 || stop == 95) && (stop != delimiter || quoted))) || stop == 45 || stop == 58);
    // Dates and times are not numbers: found here, so readNumber need not look.
    const read = readNumbers && at >= datesUntil;
    let dateEnd = -1;
    if (read && unknown && at == i && (stop == 45 || stop == 58) && charAt<T>(i - 1) < 128)
      dateEnd = dateOrTimeEnd<T>(at);
    if (dateEnd >= 0) {
      if (numberOnLine) emit(EVENT_DATE, at, dateEnd, 0);
      else datesUntil = dateEnd;
    } else if (read) {
      if (!filterCodes || unknown || load<u8>(codesAt + <usize>code) != 0 || fractionAfter<T>(end)) {
        emit(EVENT_NUMBER, at, 0, 0);
        numberOnLine = true;
      }
    }
    i = end;
    while (i < n) {
      c = raw<T>(i);
      kind = classOf<T>(c);
      if ((kind & (LETTER | DIGIT)) == 0) break;
      if ((kind & BASE64) == 0) {
        if (i - runStart >= MIN_BASE64_RUN) emit(EVENT_RUN, runStart, i, 0);
        runStart = i + 1;
      }
      i++;
    }
  }
  pos = i;
  if (i >= n && n - runStart >= MIN_BASE64_RUN) {
    emit(EVENT_RUN, runStart, n, 0);
    runStart = n;
  }
  return events;
}

/** Scans a text of u8 characters, all ASCII (the caller writes only ASCII texts one byte a character). */
export function scan8(): i32 {
  return scan<u8>();
}

export function scan16(): i32 {
  return scan<u16>();
}

// Keyword presence: where any of a few short needles (ASCII, lower case) occur in an ASCII text,
// ASCII case ignored. Sixteen positions at a time: a position is a candidate when the text there
// starts with a needle's first three characters (all of a shorter one), then it is compared in full.

/** Lower-cases the ASCII capitals of 16 bytes. */
@inline
function foldCapitals(v: v128): v128 {
  const capital = v128.and(i8x16.ge_u(v, i8x16.splat(65)), i8x16.le_u(v, i8x16.splat(90)));
  return v128.or(v, v128.and(capital, i8x16.splat(32)));
}

@inline
function foldByte(c: i32): i32 {
  return c >= 65 && c <= 90 ? c | 32 : c;
}

/** Whether the needle of `size` bytes at `address` occurs at text[at]. */
function needleAt(text: usize, n: i32, address: usize, size: i32, at: i32): bool {
  if (at + size > n) return false;
  for (let k = 0; k < size; k++) {
    if (foldByte(<i32>load<u8>(text + <usize>(at + k))) != <i32>load<u8>(address + <usize>k)) return false;
  }
  return true;
}

/** Where findNeedles stopped: the text's length when it read to the end. */
let needlesUntil: i32 = 0;

export function needlesNext(): i32 {
  return needlesUntil;
}

/**
 * Occurrences of the `count` needles in text[from, n) (a table at `needles`: each needle's i32
 * address and i32 length, then 16-byte-aligned room for 48 bytes a needle): writes (position,
 * needle) pairs of i32 to `out`, in order, up to `cap` pairs (cap >= count); returns how many it
 * wrote. needlesNext() then tells where to go on from (n: done). The text must have 17 readable
 * bytes after it.
 */
export function findNeedles(text: usize, n: i32, needles: usize, count: i32, from: i32, out: usize, cap: i32): i32 {
  // Each needle's first three characters (fewer for a shorter needle), each in all 16 lanes.
  const lanes = (needles + (<usize>count << 3) + 15) & ~15;
  for (let j = 0; j < count; j++) {
    const address = <usize>load<i32>(needles + (<usize>j << 3));
    const size = load<i32>(needles + (<usize>j << 3), 4);
    for (let k = 0; k < 3 && k < size; k++)
      v128.store(lanes + <usize>(j * 48 + k * 16), i8x16.splat(load<u8>(address + <usize>k)));
  }
  let written = 0;
  for (let i = from; i < n; i += 16) {
    const first = foldCapitals(v128.load(text + <usize>i));
    const second = foldCapitals(v128.load(text + <usize>i + 1));
    const third = foldCapitals(v128.load(text + <usize>i + 2));
    let hits = i8x16.splat(0);
    for (let j = 0; j < count; j++) {
      const lane = lanes + <usize>(j * 48);
      const size = load<i32>(needles + (<usize>j << 3), 4);
      let match = v128.and(i8x16.eq(first, v128.load(lane)), i8x16.eq(second, v128.load(lane, 16)));
      if (size < 2) match = i8x16.eq(first, v128.load(lane));
      else if (size > 2) match = v128.and(match, i8x16.eq(third, v128.load(lane, 32)));
      hits = v128.or(hits, match);
    }
    let bits = i8x16.bitmask(hits);
    while (bits != 0) {
      const at = i + ctz(bits);
      bits &= bits - 1;
      if (at >= n) break;
      if (written + count > cap) {
        needlesUntil = at;
        return written;
      }
      for (let j = 0; j < count; j++) {
        const address = <usize>load<i32>(needles + (<usize>j << 3));
        if (needleAt(text, n, address, load<i32>(needles + (<usize>j << 3), 4), at)) {
          store<i32>(out + (<usize>written << 3), at);
          store<i32>(out + (<usize>written << 3), j, 4);
          written++;
        }
      }
    }
  }
  needlesUntil = n;
  return written;
}
