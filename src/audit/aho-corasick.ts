// Aho-Corasick automaton: every literal pattern, overlapping ones included, as a dense DFA. It runs
// only around a pattern's anchor, the longest word in it that starts with a letter: the scan's word
// pass finds anchors in the same loop as everything else. Patterns without such a word (04:00) are
// found by one native regular expression. The scan folds ASCII case and reads a run of whitespace
// and Markdown emphasis characters (* and `) as one space, so "Compounded\n  **per** level" matches
// the pattern "compounded per level".
import { forEachWord, WordTable } from "./words.ts";

export type MatchCallback = (pattern: number, start: number, end: number) => void;

const SKIP_STAR = 42;
const SKIP_BACKTICK = 96;

function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13) || c === SKIP_STAR || c === SKIP_BACKTICK;
}

/** The longest word of a pattern that starts with a letter (a word pass reads it as a word). */
export function anchorOf(pattern: string): string | undefined {
  let best: string | undefined;
  forEachWord(pattern, (_h, s, e) => {
    const c = pattern.charCodeAt(s);
    if (!(c >= 48 && c <= 57) && (!best || e - s > best.length)) best = pattern.slice(s, e);
  });
  return best;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/ /g, "[\\s*`]+");
}

/**
 * Where a match of `length` normalised characters ending at text[end] starts: walks back over the
 * text applying the same whitespace collapsing and skipping as the scan (matches are rare).
 */
function startOf(text: string, end: number, length: number, from: number): number {
  let remaining = length;
  let i = end;
  let start = end;
  while (i >= from && remaining > 0) {
    if (isSpace(text.charCodeAt(i))) {
      while (i - 1 >= from && isSpace(text.charCodeAt(i - 1))) i--;
    }
    start = i;
    remaining--;
    i--;
  }
  return start;
}

export class AhoCorasick {
  readonly patterns: readonly string[];
  private readonly asciiClass = new Uint16Array(128);
  private readonly otherClass = new Map<number, number>();
  private readonly classes: number;
  private readonly delta: Int32Array;
  private readonly outStart: Int32Array;
  private readonly outList: Int32Array;
  private readonly hasOutput: Uint8Array;
  /** Patterns found through their anchor (1) or through the prefilter (0). */
  private readonly anchored: Uint8Array;
  /** Anchor words (lower-case), each reported by the word pass. */
  readonly anchorWords: string[];
  private readonly anchors = new WordTable();
  /** The patterns without an anchor, as one regular expression (absent when there are none). */
  private readonly prefilter: RegExp | undefined;
  private readonly longest: number;

  /** `patterns` must already be normalised (normalisePattern): lower-case, single spaces, trimmed. */
  constructor(patterns: readonly string[]) {
    this.patterns = patterns;
    let classes = 1;
    for (const p of patterns) {
      for (let i = 0; i < p.length; i++) {
        const c = p.charCodeAt(i);
        if (c < 128) {
          if (this.asciiClass[c] === 0) {
            this.asciiClass[c] = classes;
            // Upper-case ASCII letters share the class of their lower-case letter.
            if (c >= 97 && c <= 122) this.asciiClass[c - 32] = classes;
            classes++;
          }
        } else if (!this.otherClass.has(c)) this.otherClass.set(c, classes++);
      }
    }
    this.classes = classes;
    // Trie.
    const next: Array<Map<number, number>> = [new Map()];
    const outputs: number[][] = [[]];
    patterns.forEach((p, index) => {
      let state = 0;
      for (let i = 0; i < p.length; i++) {
        const cls = this.classOf(p.charCodeAt(i));
        let to = next[state]!.get(cls);
        if (to === undefined) {
          to = next.length;
          next.push(new Map());
          outputs.push([]);
          next[state]!.set(cls, to);
        }
        state = to;
      }
      if (p.length > 0) outputs[state]!.push(index);
    });
    // Failure links by breadth-first search, folded into a complete transition table.
    const states = next.length;
    const delta = new Int32Array(states * classes);
    const fail = new Int32Array(states);
    const queue: number[] = [];
    for (const [cls, to] of next[0]!) {
      delta[cls] = to;
      queue.push(to);
    }
    for (let head = 0; head < queue.length; head++) {
      const state = queue[head]!;
      outputs[state]!.push(...outputs[fail[state]!]!);
      for (let cls = 0; cls < classes; cls++) {
        const to = next[state]!.get(cls);
        if (to === undefined) {
          delta[state * classes + cls] = delta[fail[state]! * classes + cls]!;
        } else {
          fail[to] = delta[fail[state]! * classes + cls]!;
          delta[state * classes + cls] = to;
          queue.push(to);
        }
      }
    }
    this.delta = delta;
    this.outStart = new Int32Array(states + 1);
    const flat: number[] = [];
    for (let s = 0; s < states; s++) {
      this.outStart[s] = flat.length;
      flat.push(...outputs[s]!);
    }
    this.outStart[states] = flat.length;
    this.outList = Int32Array.from(flat);
    this.anchored = new Uint8Array(patterns.length);
    const unanchored = new Set<string>();
    const anchorWords = new Set<string>();
    patterns.forEach((p, index) => {
      const anchor = anchorOf(p);
      if (anchor === undefined) {
        if (p.length > 0) unanchored.add(p);
        return;
      }
      this.anchored[index] = 1;
      anchorWords.add(anchor);
    });
    this.anchorWords = [...anchorWords];
    for (const word of anchorWords) this.anchors.add(word, 1);
    const sorted = [...unanchored].sort((a, b) => b.length - a.length);
    this.prefilter = sorted.length > 0 ? new RegExp(sorted.map(escapeRegExp).join("|"), "gi") : undefined;
    this.longest = Math.max(1, ...patterns.map((p) => p.length));
    this.hasOutput = Uint8Array.from({ length: states }, (_, s) =>
      this.outStart[s + 1]! > this.outStart[s]! ? 1 : 0,
    );
  }

  private classOf(c: number): number {
    return c < 128 ? this.asciiClass[c]! : (this.otherClass.get(c) ?? 0);
  }

  /**
   * Calls `onMatch(pattern, start, end)` with text offsets (end exclusive) for every occurrence.
   * `anchorSpans` are the start/end pairs of anchor words in text order (the scan's word pass finds
   * them); without them they are looked up here.
   */
  scan(text: string, onMatch: MatchCallback, anchorSpans: readonly number[] = this.anchorSpans(text)): void {
    if (this.patterns.length === 0) return;
    const reach = 4 * this.longest;
    const anchored = this.anchored;
    // Around anchors: the windows of neighbouring anchors merge, so each match is reported once.
    for (let n = 0; n < anchorSpans.length; ) {
      const from = Math.max(0, anchorSpans[n]! - reach);
      let to = Math.min(text.length, anchorSpans[n + 1]! + reach);
      n += 2;
      while (n < anchorSpans.length && anchorSpans[n]! - reach <= to) {
        to = Math.min(text.length, anchorSpans[n + 1]! + reach);
        n += 2;
      }
      this.run(text, from, to, (pattern, s, e) => {
        if (anchored[pattern] === 1) onMatch(pattern, s, e);
      });
    }
    const re = this.prefilter;
    if (re === undefined) return;
    re.lastIndex = 0;
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      const start = m.index;
      // Every match starting here (several patterns may): run the automaton over a bounded window.
      const limit = Math.min(text.length, start + m[0].length + reach);
      this.run(text, start, limit, (pattern, s, e) => {
        if (s === start && anchored[pattern] === 0) onMatch(pattern, s, e);
      });
      re.lastIndex = start + 1;
    }
  }

  private anchorSpans(text: string): number[] {
    const spans: number[] = [];
    forEachWord(text, (h, s, e) => {
      if (this.anchors.lookup(h, text, s, e) !== 0) spans.push(s, e);
    });
    return spans;
  }

  /** The automaton itself over text[from, to). */
  run(text: string, from: number, to: number, onMatch: MatchCallback): void {
    const { delta, classes, outStart, outList, asciiClass, otherClass, hasOutput, patterns } = this;
    let state = 0;
    let prevSpace = false;
    for (let i = from; i < to; i++) {
      let c = text.charCodeAt(i);
      let cls: number;
      if (c < 128) {
        if (isSpace(c)) {
          if (prevSpace) continue;
          prevSpace = true;
          c = 32;
        } else {
          prevSpace = false;
        }
        cls = asciiClass[c]!;
      } else {
        prevSpace = false;
        cls = otherClass.get(c) ?? 0;
      }
      state = delta[state * classes + cls]!;
      if (hasOutput[state] === 0) continue;
      for (let o = outStart[state]!; o < outStart[state + 1]!; o++) {
        const pattern = outList[o]!;
        onMatch(pattern, startOf(text, i, patterns[pattern]!.length, from), i + 1);
      }
    }
  }
}
