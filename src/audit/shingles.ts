// Prose shingles: every run of k consecutive words of the artefact, hashed; a scanned text that
// repeats such a run copies the artefact's prose. Words are what the scan's word pass reports
// (numbers are left to the number matchers), so a text is read in the same single pass; hits are
// verified word by word, so hash collisions never make a finding.
import { tokenPass, type WordSink } from "./token-pass.ts";

const BASE = 0x9e3779b1;
const FILTER_BITS = 21;
const VOCABULARY_BITS = 16;

/** Whether a word hash is in a vocabulary filter (a window with a word outside it matches nothing). */
function inVocabulary(vocabulary: Uint32Array, hash: number): boolean {
  const bit = hash >>> (32 - VOCABULARY_BITS);
  return (vocabulary[bit >>> 5]! & (1 << (bit & 31))) !== 0;
}

export interface ShingleRun {
  start: number;
  end: number;
  words: number;
}

/** The words of a text as the word pass sees them: hash, lower-cased word, span. */
class WordList {
  readonly words: Array<{ hash: number; word: string; start: number; end: number }> = [];
  constructor(private readonly text: string) {}
  word(hash: number, start: number, end: number): void {
    this.words.push({ hash, word: this.text.slice(start, end).toLowerCase(), start, end });
  }
}

function passWords(text: string): WordList["words"] {
  const list = new WordList(text);
  tokenPass(text, { delimiter: -1, everyWord: list, onRun: () => {} });
  return list.words;
}

export class ShingleSet {
  private readonly windows = new Map<number, number[]>();
  /** Internal (read by ShingleReader): a bit filter of window hashes in front of the map. */
  readonly filter = new Uint32Array(1 << (FILTER_BITS - 5));
  /**
   * Internal: a bit filter of the artefact's word hashes. Only a run of k words it may hold is
   * looked up in the window filter.
   */
  readonly vocabulary = new Uint32Array(1 << (VOCABULARY_BITS - 5));
  private readonly words: string[];
  /** Internal: BASE^(k-1), what the word leaving the window weighs in its hash. */
  readonly topPower: number;

  constructor(
    artefactText: string,
    readonly k: number,
  ) {
    const words = passWords(artefactText);
    this.words = words.map((w) => w.word);
    let power = 1;
    for (let i = 1; i < k; i++) power = Math.imul(power, BASE);
    this.topPower = power;
    let h = 0;
    for (let i = 0; i < words.length; i++) {
      const bit = words[i]!.hash >>> (32 - VOCABULARY_BITS);
      this.vocabulary[bit >>> 5]! |= 1 << (bit & 31);
      h = rollHash(h, i >= k ? words[i - k]!.hash : 0, words[i]!.hash, power);
      if (i + 1 >= k) {
        const start = i + 1 - k;
        const list = this.windows.get(h);
        if (list) list.push(start);
        else this.windows.set(h, [start]);
        const bit = h >>> (32 - FILTER_BITS);
        this.filter[bit >>> 5]! |= 1 << (bit & 31);
      }
    }
  }

  get size(): number {
    return this.windows.size;
  }

  /** Copied runs in `text` (the scan feeds a ShingleReader from its own word pass instead). */
  scan(text: string): ShingleRun[] {
    const reader = new ShingleReader(this, text);
    for (const w of passWords(text)) reader.word(w.hash, w.start, w.end);
    return reader.finish();
  }

  /** Internal: the artefact windows with this hash whose words equal `words`. */
  verify(h: number, words: (j: number) => string): boolean {
    const candidates = this.windows.get(h);
    if (!candidates) return false;
    return candidates.some((start) => {
      for (let j = 0; j < this.k; j++) if (words(j) !== this.words[start + j]) return false;
      return true;
    });
  }
}

function rollHash(h: number, out: number, incoming: number, topPower: number): number {
  return (Math.imul(h - Math.imul(out, topPower), BASE) + incoming) | 0;
}

export class ShingleReader implements WordSink {
  private readonly ring: Int32Array;
  private readonly starts: Int32Array;
  private readonly ends: Int32Array;
  private readonly runs: ShingleRun[] = [];
  private count = 0;
  /** Words in a row that the vocabulary filter may hold. */
  private known = 0;
  /** Ring position of the next word (count % k). */
  private slot = 0;
  private h = 0;
  private run: ShingleRun | null = null;
  private runLastWord = -1;

  constructor(
    private readonly set: ShingleSet,
    private readonly text: string,
  ) {
    this.ring = new Int32Array(set.k);
    this.starts = new Int32Array(set.k);
    this.ends = new Int32Array(set.k);
  }

  /** Called for every word: kept cheap, the rare window that passes the filter is verified apart. */
  word(hash: number, start: number, end: number): void {
    const set = this.set;
    const k = set.k;
    const slot = this.slot;
    const h = rollHash(this.h, this.count >= k ? this.ring[slot]! : 0, hash, set.topPower);
    this.h = h;
    this.ring[slot] = hash;
    this.starts[slot] = start;
    this.ends[slot] = end;
    this.slot = slot + 1 === k ? 0 : slot + 1;
    this.count++;
    this.known = inVocabulary(set.vocabulary, hash) ? this.known + 1 : 0;
    if (this.known < k) return;
    const bit = h >>> (32 - FILTER_BITS);
    if ((set.filter[bit >>> 5]! & (1 << (bit & 31))) !== 0)
      this.candidate(h, this.count, end, this.starts, this.ends);
  }

  /**
   * A window whose hash passed the filter, after `count` words (the last ending at `end`); the
   * spans of the last k words are in `starts`/`ends` at (count - k + j) % k. The WebAssembly word
   * pass calls this with its own ring.
   */
  candidate(h: number, count: number, end: number, starts: Int32Array, ends: Int32Array): void {
    const k = this.set.k;
    const first = count - k;
    const words = (j: number) => {
      const s = (first + j) % k;
      return this.text.slice(starts[s]!, ends[s]!).toLowerCase();
    };
    if (!this.set.verify(h, words)) return;
    const firstStart = starts[first % k]!;
    if (this.run && this.runLastWord >= first) {
      this.run.end = end;
      this.run.words += count - 1 - this.runLastWord;
    } else {
      this.run = { start: firstStart, end, words: k };
      this.runs.push(this.run);
    }
    this.runLastWord = count - 1;
  }

  finish(): ShingleRun[] {
    return this.runs;
  }
}
