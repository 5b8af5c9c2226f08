// Aho-Corasick automaton: every literal pattern, overlapping ones included, as a dense DFA. One
// native regular expression of all patterns finds where matches start (V8 runs it far faster than
// a JavaScript loop); the automaton then runs from each such start only. The scan folds ASCII case
// and reads a run of whitespace and Markdown emphasis characters (* and `) as one space, so
// "Compounded\n  **per** level" matches the pattern "compounded per level".

export type MatchCallback = (pattern: number, start: number, end: number) => void;

const SKIP_STAR = 42;
const SKIP_BACKTICK = 96;

function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13) || c === SKIP_STAR || c === SKIP_BACKTICK;
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
  private readonly prefilter: RegExp;
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
    const sorted = [...new Set(patterns)].filter((p) => p.length > 0).sort((a, b) => b.length - a.length);
    this.prefilter = new RegExp(sorted.map(escapeRegExp).join("|") || "(?!)", "gi");
    this.longest = Math.max(1, ...patterns.map((p) => p.length));
    this.hasOutput = Uint8Array.from({ length: states }, (_, s) =>
      this.outStart[s + 1]! > this.outStart[s]! ? 1 : 0,
    );
  }

  private classOf(c: number): number {
    return c < 128 ? this.asciiClass[c]! : (this.otherClass.get(c) ?? 0);
  }

  /** Calls `onMatch(pattern, start, end)` with text offsets (end exclusive) for every occurrence. */
  scan(text: string, onMatch: MatchCallback, from = 0, to = text.length): void {
    if (this.patterns.length === 0) return;
    const re = this.prefilter;
    re.lastIndex = from;
    for (let m = re.exec(text); m !== null && m.index < to; m = re.exec(text)) {
      const start = m.index;
      // Every match starting here (several patterns may): run the automaton over a bounded window.
      const limit = Math.min(to, start + m[0].length + 4 * this.longest);
      this.run(text, start, limit, (pattern, s, e) => {
        if (s === start) onMatch(pattern, s, e);
      });
      re.lastIndex = start + 1;
    }
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
