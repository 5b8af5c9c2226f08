// The word pass in WebAssembly (assembly/scanner.ts, built to scanner.wasm next to this module's
// output) for large texts: it reads the characters and writes events; this side acts on them
// exactly as tokenPass would (readNumber, the word table, base64 runs, prose windows). It also
// hands over the text's line starts, which locations then need not count again. The same module
// searches long ASCII texts for context keywords (eachNeedle).
import { readFileSync } from "node:fs";
import { knowLineStarts } from "./document.ts";
import { type NumberLiteral, newLiteral, readNumber } from "./numbers.ts";
import type { ShingleReader, ShingleSet } from "./shingles.ts";
import { ASCII_TABLES, type TokenPassOptions } from "./token-pass.ts";
import { isWordCode, type WordTable } from "./words.ts";

/** Texts shorter than this are read by tokenPass (copying them into WebAssembly would cost more). */
export const WASM_MIN_CHARS = 64 * 1024;

const EVENT_NUMBER = 1;
const EVENT_WORD = 2;
const EVENT_RUN = 3;
const EVENT_SHINGLE = 4;
const EVENT_DATE = 5;
const EVENT_CAPACITY = 4096;
const NEEDLE_CAPACITY = 1024;
const PAGE = 65536;

interface Scanner {
  memory: WebAssembly.Memory;
  configure(...args: number[]): void;
  begin(at: number, length: number, delimiter: number, lines: number, lineCapacity: number): void;
  position(): number;
  lineCount(): number;
  scan8(): number;
  scan16(): number;
  findNeedles(
    text: number,
    length: number,
    needles: number,
    count: number,
    from: number,
    out: number,
    cap: number,
  ): number;
  needlesNext(): number;
}

let scanner: Scanner | null | undefined;

/**
 * The compiled scanner, or null when scanner.wasm is missing or does not load, or KGATE_NO_WASM is
 * set (tokenPass is used then).
 */
function loadScanner(): Scanner | null {
  if (scanner !== undefined) return scanner;
  scanner = null;
  if (process.env.KGATE_NO_WASM) return scanner;
  try {
    const bytes = readFileSync(new URL("./scanner.wasm", import.meta.url));
    const wordChar = (c: number) => (isWordCode(c) ? 1 : 0);
    const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes), { env: { wordChar } });
    scanner = instance.exports as unknown as Scanner;
  } catch {
    // scanner stays null: tokenPass reads every text.
  }
  return scanner;
}

interface Layout {
  ring: number;
  events: number;
  text: number;
}

/**
 * The ASCII text whose bytes are at the text's place in the scanner's memory, if any (tables are
 * only ever rewritten by a pass, which then writes its own text).
 */
let resident: string | undefined;

/** What the scanner was last configured with: a rule set's texts reuse its tables. */
let configured: { key: readonly unknown[]; layout: Layout } | undefined;

/**
 * Writes the tables into the scanner's memory and configures it, unless they are the ones already
 * there; returns where the text goes.
 */
function configure(s: Scanner, options: TokenPassOptions, shingles: ShingleSet | undefined): Layout {
  const key = [options.words, options.codes, options.onNumber !== undefined, shingles];
  if (configured?.key.every((part, i) => part === key[i])) return configured.layout;
  configured = { key, layout: writeTables(s, options, shingles) };
  return configured.layout;
}

function writeTables(s: Scanner, options: TokenPassOptions, shingles: ShingleSet | undefined): Layout {
  const slots = options.words?.slots();
  const tableSize = slots?.hashes.length ?? 0;
  const k = shingles?.k ?? 0;
  const classes = 0;
  const codes = 256;
  const table = 1280;
  const filter = alignUp(table + tableSize * 5, 16);
  const ring = alignUp(
    filter + (shingles ? shingles.filter.byteLength + shingles.vocabulary.byteLength : 0),
    16,
  );
  const events = alignUp(ring + 12 * k, 16);
  const text = alignUp(events + 16 * EVENT_CAPACITY, 16);
  grow(s, text);
  const bytes = new Uint8Array(s.memory.buffer);
  bytes.set(ASCII_TABLES, classes);
  if (options.codes) bytes.set(options.codes.subarray(0, 1000), codes);
  if (slots) {
    new Int32Array(s.memory.buffer, table, tableSize).set(slots.hashes);
    bytes.set(slots.used, table + tableSize * 4);
  }
  if (shingles) {
    // The vocabulary filter right after the window filter, where the scanner reads it.
    new Uint32Array(s.memory.buffer, filter, shingles.filter.length).set(shingles.filter);
    new Uint32Array(s.memory.buffer, filter + shingles.filter.byteLength, shingles.vocabulary.length).set(
      shingles.vocabulary,
    );
  }
  s.configure(
    classes,
    codes,
    options.onNumber ? 1 : 0,
    options.codes ? 1 : 0,
    table,
    slots ? tableSize - 1 : -1,
    filter,
    k,
    shingles?.topPower ?? 0,
    ring,
    events,
    EVENT_CAPACITY,
  );
  return { ring, events, text };
}

/** `n` rounded up to a multiple of `to`: where a table of `to`-byte items may start. */
function alignUp(n: number, to: number): number {
  return Math.ceil(n / to) * to;
}

function grow(s: Scanner, bytes: number): void {
  const pages = Math.ceil(bytes / PAGE) - s.memory.buffer.byteLength / PAGE;
  if (pages > 0) s.memory.grow(pages);
}

/**
 * Runs the word pass over `text` in WebAssembly, calling back as tokenPass does (prose windows go
 * to `prose`); returns false when the scanner is not available, and the caller runs tokenPass.
 * `ascii`: every character is below 128 (the text is then handed over a byte a character).
 */
export function wasmPass(
  text: string,
  ascii: boolean,
  options: TokenPassOptions,
  prose: { reader: ShingleReader; set: ShingleSet } | undefined,
): boolean {
  const s = loadScanner();
  if (!s) return false;
  const layout = configure(s, options, prose?.set);
  const wide = !ascii;
  const lineBuffer = alignUp(layout.text + text.length * (wide ? 2 : 1), 4);
  const lineCapacity = Math.ceil(text.length / 16) + 64;
  grow(s, lineBuffer + 4 * lineCapacity);
  Buffer.from(s.memory.buffer).write(text, layout.text, wide ? "utf16le" : "latin1");
  resident = wide ? undefined : text;
  const { delimiter, onNumber, words, onWord, onRun } = options;
  s.begin(layout.text, text.length, delimiter, lineBuffer, lineCapacity);
  const k = prose?.set.k ?? 0;
  const starts = new Int32Array(s.memory.buffer, layout.ring + 4 * k, k);
  const ends = new Int32Array(s.memory.buffer, layout.ring + 8 * k, k);
  const lit: NumberLiteral = newLiteral();
  let numbersUntil = 0;
  for (;;) {
    const count = wide ? s.scan16() : s.scan8();
    const events = new Int32Array(s.memory.buffer, layout.events, count * 4);
    for (let e = 0; e < events.length; e += 4) {
      const a = events[e + 1]!;
      const b = events[e + 2]!;
      const c = events[e + 3]!;
      switch (events[e]) {
        case EVENT_NUMBER:
          if (onNumber && a >= numbersUntil) {
            numbersUntil = readNumber(text, a, lit, delimiter);
            if (lit.end >= 0) onNumber(lit);
          }
          break;
        case EVENT_DATE:
          // What readNumber does with a date: nothing is a number before its end.
          if (a >= numbersUntil) numbersUntil = b;
          break;
        case EVENT_WORD: {
          const flags = (words as WordTable).lookup(a, text, b, c);
          if (flags !== 0) onWord!(flags, a, b, c);
          break;
        }
        case EVENT_RUN:
          onRun(a, b);
          break;
        case EVENT_SHINGLE:
          prose!.reader.candidate(a, b, c, starts, ends);
          break;
      }
    }
    if (s.position() >= text.length) break;
  }
  const lines = s.lineCount();
  if (lines <= lineCapacity) {
    const starts = new Int32Array(lines + 1);
    starts.set(new Int32Array(s.memory.buffer, lineBuffer, lines), 1);
    knowLineStarts(text, starts);
  }
  return true;
}

/**
 * Calls `each(at, needle)` for every occurrence of `needles` (ASCII, lower case, none empty) in an
 * all-ASCII `text`, ASCII case ignored, in order of position, until it returns false. Returns false,
 * calling nothing, when the scanner is not available.
 */
export function eachNeedle(
  text: string,
  needles: readonly string[],
  each: (at: number, needle: number) => boolean,
): boolean {
  const s = loadScanner();
  if (!s) return false;
  // Above the tables a configured scanner keeps; the text's place is free between passes.
  const base = configured?.layout.text ?? 0;
  const table = alignUp(base + text.length + 32, 8);
  // The table, room for each needle's first characters in 16 lanes (see findNeedles), the needles.
  let address = alignUp(table + 8 * needles.length, 16) + 48 * needles.length;
  const addresses = needles.map((needle) => {
    const at = address;
    address += needle.length;
    return at;
  });
  const out = alignUp(address, 8);
  grow(s, out + 8 * NEEDLE_CAPACITY);
  const memory = Buffer.from(s.memory.buffer);
  // The text the last pass read is still there (keyword presence is asked after a document's scan).
  if (resident !== text) {
    memory.write(text, base, "latin1");
    resident = text;
  }
  const entries = new Int32Array(s.memory.buffer, table, 2 * needles.length);
  needles.forEach((needle, j) => {
    memory.write(needle, addresses[j]!, "latin1");
    entries[2 * j] = addresses[j]!;
    entries[2 * j + 1] = needle.length;
  });
  for (let from = 0; from < text.length; from = s.needlesNext()) {
    const count = s.findNeedles(base, text.length, table, needles.length, from, out, NEEDLE_CAPACITY);
    const pairs = new Int32Array(s.memory.buffer, out, 2 * count);
    for (let k = 0; k < pairs.length; k += 2) if (!each(pairs[k]!, pairs[k + 1]!)) return true;
  }
  return true;
}
