// Words of a text in one pass: each word's FNV-1a hash of its case-folded characters and its span.
// The word table the scan's word pass looks words up in.

export type WordCallback = (hash: number, start: number, end: number) => void;

const letterCache = new Uint8Array(0x10000);
const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/** ASCII letters and digits, and any non-ASCII letter or digit. */
export function isWordCode(c: number): boolean {
  if (c < 128) return (c >= 48 && c <= 57) || ((c | 32) >= 97 && (c | 32) <= 122);
  if (c > 0xffff) return true;
  let known = letterCache[c]!;
  if (known === 0) {
    known = LETTER_OR_DIGIT.test(String.fromCharCode(c)) || (c >= 0xd800 && c <= 0xdfff) ? 1 : 2;
    letterCache[c] = known;
  }
  return known === 1;
}

/** FNV-1a of a word as the word pass hashes it (ASCII folded to lower case). */
export function wordHash(word: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < word.length; i++) {
    let c = word.charCodeAt(i);
    if (c >= 65 && c <= 90) c |= 32;
    h = Math.imul(h ^ c, 0x01000193);
  }
  return h;
}

export function forEachWord(text: string, onWord: WordCallback, from = 0, to = text.length): void {
  let i = from;
  while (i < to) {
    let c = text.charCodeAt(i);
    if (c < 128 ? !((c >= 48 && c <= 57) || ((c | 32) >= 97 && (c | 32) <= 122)) : !isWordCode(c)) {
      i++;
      continue;
    }
    const start = i;
    let h = 0x811c9dc5;
    do {
      if (c >= 65 && c <= 90) c |= 32;
      h = Math.imul(h ^ c, 0x01000193);
      i++;
      if (i >= to) break;
      c = text.charCodeAt(i);
    } while (c < 128 ? (c >= 48 && c <= 57) || ((c | 32) >= 97 && (c | 32) <= 122) : isWordCode(c));
    onWord(h, start, i);
  }
}

/**
 * Words to look for, each with flags saying what it is for (a spelled-out number, a prose anchor):
 * an open-addressing table of their hashes, checked against the text's characters on a hit.
 */
export class WordTable {
  private hashes = new Int32Array(64);
  private entries: Array<{ word: string; flags: number } | undefined> = new Array(64);
  private count = 0;

  /** Adds `word` (lower-case) with `flags`; a word added twice keeps both flags. */
  add(word: string, flags: number): void {
    if (this.count * 2 >= this.hashes.length) this.grow();
    const h = wordHash(word);
    const mask = this.hashes.length - 1;
    let slot = h & mask;
    for (let entry = this.entries[slot]; entry !== undefined; entry = this.entries[slot]) {
      if (entry.word === word) {
        entry.flags |= flags;
        return;
      }
      slot = (slot + 1) & mask;
    }
    this.hashes[slot] = h;
    this.entries[slot] = { word, flags };
    this.count++;
  }

  get size(): number {
    return this.count;
  }

  /** The slots (a power of two): each one's hash, and whether it is used (for the WebAssembly pass). */
  slots(): { hashes: Int32Array; used: Uint8Array } {
    return { hashes: this.hashes, used: Uint8Array.from(this.entries, (e) => (e === undefined ? 0 : 1)) };
  }

  /** The flags of the word text[start, end) with hash `hash` (see wordHash), or 0. */
  lookup(hash: number, text: string, start: number, end: number): number {
    const mask = this.hashes.length - 1;
    for (let slot = hash & mask; this.entries[slot] !== undefined; slot = (slot + 1) & mask) {
      if (this.hashes[slot] !== hash) continue;
      const entry = this.entries[slot]!;
      if (entry.word.length === end - start && sameFolded(text, start, entry.word)) return entry.flags;
    }
    return 0;
  }

  private grow(): void {
    const old = this.entries.filter((e) => e !== undefined);
    this.hashes = new Int32Array(this.hashes.length * 2);
    this.entries = new Array(this.hashes.length);
    this.count = 0;
    for (const e of old) this.add(e.word, e.flags);
  }
}

/** Whether text at `start` spells `word` (lower-case), ASCII case folded. */
function sameFolded(text: string, start: number, word: string): boolean {
  for (let k = 0; k < word.length; k++) {
    let c = text.charCodeAt(start + k);
    if (c >= 65 && c <= 90) c |= 32;
    if (c !== word.charCodeAt(k)) return false;
  }
  return true;
}
