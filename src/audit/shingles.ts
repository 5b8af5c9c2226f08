// Prose shingles: every run of k consecutive words of the artefact, hashed; a scanned text that
// repeats such a run copies the artefact's prose. Hits are verified word by word, so hash
// collisions never make a finding.
import { forEachWord, isWordCode, WordTable, wordsOf } from "./words.ts";

const BASE = 0x9e3779b1;
const FILTER_BITS = 21;

export interface ShingleRun {
  start: number;
  end: number;
  words: number;
}

export class ShingleSet {
  private readonly windows = new Map<number, number[]>();
  private readonly filter = new Uint32Array(1 << (FILTER_BITS - 5));
  private readonly words: string[];
  private readonly topPower: number;
  /** Each window's longest word (not led by a digit): a copied run holds its windows' anchors. */
  readonly anchorWords: string[];
  private readonly anchors = new WordTable();

  constructor(
    artefactText: string,
    readonly k: number,
  ) {
    const words = wordsOf(artefactText);
    this.words = words.map((w) => w.word);
    const anchors = new Set<string>();
    // A word that starts with a digit is read as a number, not as a word, by the scan's word pass.
    const weight = (word: string) => word.length + (word.charCodeAt(0) <= 57 ? 0 : 1000);
    for (let i = 0; i + k <= words.length; i++) {
      let anchor = words[i]!.word;
      for (let j = i + 1; j < i + k; j++)
        if (weight(words[j]!.word) > weight(anchor)) anchor = words[j]!.word;
      anchors.add(anchor);
    }
    this.anchorWords = [...anchors];
    for (const word of anchors) this.anchors.add(word, 1);
    let power = 1;
    for (let i = 1; i < k; i++) power = Math.imul(power, BASE);
    this.topPower = power;
    let h = 0;
    for (let i = 0; i < words.length; i++) {
      h = this.roll(h, i >= k ? words[i - k]!.hash : 0, words[i]!.hash);
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

  /**
   * Copied runs in `text`: windows are hashed only around occurrences of anchor words, given as
   * start/end pairs in text order (the scan's word pass finds them) or found here.
   */
  scan(text: string, anchorSpans: readonly number[] = this.anchorSpans(text)): ShingleRun[] {
    const regions: Array<[number, number]> = [];
    for (let n = 0; n < anchorSpans.length; n += 2) {
      const a = wordsBack(text, anchorSpans[n]!, this.k - 1);
      const b = wordsForward(text, anchorSpans[n + 1]!, this.k - 1);
      const last = regions.at(-1);
      if (last && a <= last[1]) last[1] = Math.max(last[1], b);
      else regions.push([a, b]);
    }
    const runs: ShingleRun[] = [];
    for (const [a, b] of regions) {
      const reader = new ShingleReader(this, text);
      forEachWord(text, (h, s, e) => reader.word(h, s, e), a, b);
      runs.push(...reader.finish());
    }
    return runs;
  }

  private anchorSpans(text: string): number[] {
    const spans: number[] = [];
    forEachWord(text, (h, s, e) => {
      if (this.anchors.lookup(h, text, s, e) !== 0) spans.push(s, e);
    });
    return spans;
  }

  private roll(h: number, out: number, incoming: number): number {
    return (Math.imul(h - Math.imul(out, this.topPower), BASE) + incoming) | 0;
  }

  /** Internal: whether a window hash may be a shingle (a bit filter in front of the map). */
  mayHave(h: number): boolean {
    const bit = h >>> (32 - FILTER_BITS);
    return (this.filter[bit >>> 5]! & (1 << (bit & 31))) !== 0;
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

  rollHash(h: number, out: number, incoming: number): number {
    return this.roll(h, out, incoming);
  }
}

export class ShingleReader {
  private readonly ring: Int32Array;
  private readonly starts: Int32Array;
  private readonly ends: Int32Array;
  private readonly runs: ShingleRun[] = [];
  private count = 0;
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

  word(hash: number, start: number, end: number): void {
    const k = this.set.k;
    const slot = this.count % k;
    this.h = this.set.rollHash(this.h, this.count >= k ? this.ring[slot]! : 0, hash);
    this.ring[slot] = hash;
    this.starts[slot] = start;
    this.ends[slot] = end;
    this.count++;
    if (this.count < k || !this.set.mayHave(this.h)) return;
    const first = this.count - k;
    const words = (j: number) => {
      const s = (first + j) % k;
      return this.text.slice(this.starts[s]!, this.ends[s]!).toLowerCase();
    };
    if (!this.set.verify(this.h, words)) return;
    const firstStart = this.starts[first % k]!;
    if (this.run && this.runLastWord >= first) {
      this.run.end = end;
      this.run.words += this.count - 1 - this.runLastWord;
    } else {
      this.run = { start: firstStart, end, words: k };
      this.runs.push(this.run);
    }
    this.runLastWord = this.count - 1;
  }

  finish(): ShingleRun[] {
    return this.runs;
  }
}

function isWordAt(text: string, i: number): boolean {
  return i >= 0 && i < text.length && isWordCode(text.charCodeAt(i));
}

/** The start of the n-th word before `pos` (or of the text). */
function wordsBack(text: string, pos: number, n: number): number {
  let i = pos;
  for (let w = 0; w < n && i > 0; w++) {
    while (i > 0 && !isWordAt(text, i - 1)) i--;
    while (i > 0 && isWordAt(text, i - 1)) i--;
  }
  return i;
}

/** The end of the n-th word after `pos` (or of the text). */
function wordsForward(text: string, pos: number, n: number): number {
  let i = pos;
  for (let w = 0; w < n && i < text.length; w++) {
    while (i < text.length && !isWordAt(text, i)) i++;
    while (i < text.length && isWordAt(text, i)) i++;
  }
  return i;
}
