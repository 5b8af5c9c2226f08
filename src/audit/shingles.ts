// Prose shingles: every run of k consecutive words of the artefact, hashed; a scanned text that
// repeats such a run copies the artefact's prose. Hits are verified word by word, so hash
// collisions never make a finding.
import { wordsOf } from "./words.ts";

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

  constructor(
    artefactText: string,
    readonly k: number,
  ) {
    const words = wordsOf(artefactText);
    this.words = words.map((w) => w.word);
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

  private roll(h: number, out: number, incoming: number): number {
    return (Math.imul(h - Math.imul(out, this.topPower), BASE) + incoming) | 0;
  }

  /** A consumer for the word stream of `text`; `finish()` returns the copied runs. */
  reader(text: string): ShingleReader {
    return new ShingleReader(this, text);
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
