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
  reader(text: string): {
    word: (hash: number, start: number, end: number) => void;
    finish: () => ShingleRun[];
  } {
    const k = this.k;
    const ring = new Int32Array(k);
    const starts = new Int32Array(k);
    const ends = new Int32Array(k);
    const runs: ShingleRun[] = [];
    let count = 0;
    let h = 0;
    let run: ShingleRun | null = null;
    let runLastWord = -1;
    const verify = (candidates: number[]): boolean => {
      const first = count - k;
      return candidates.some((start) => {
        for (let j = 0; j < k; j++) {
          const slot = (first + j) % k;
          const word = text.slice(starts[slot]!, ends[slot]!).toLowerCase();
          if (word !== this.words[start + j]) return false;
        }
        return true;
      });
    };
    return {
      word: (hash, start, end) => {
        const slot = count % k;
        h = this.roll(h, count >= k ? ring[slot]! : 0, hash);
        ring[slot] = hash;
        starts[slot] = start;
        ends[slot] = end;
        count++;
        if (count < k) return;
        const bit = h >>> (32 - FILTER_BITS);
        if ((this.filter[bit >>> 5]! & (1 << (bit & 31))) === 0) return;
        const candidates = this.windows.get(h);
        if (!candidates || !verify(candidates)) return;
        const firstStart = starts[(count - k) % k]!;
        if (run && runLastWord >= count - k) {
          run.end = end;
          run.words += count - 1 - runLastWord;
        } else {
          run = { start: firstStart, end, words: k };
          runs.push(run);
        }
        runLastWord = count - 1;
      },
      finish: () => runs,
    };
  }
}
