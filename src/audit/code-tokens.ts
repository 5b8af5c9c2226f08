// A small lexer for the code-fingerprint pass: Python, the C family (JavaScript, TypeScript, C,
// Java, Go, Rust...), shell and the pseudocode of an artefact, read into one canonical token stream.
// Identifiers become V, numbers N and strings S; the keywords the languages share get one spelling
// (def/function/func -> fn, && -> and, None/null/nil -> null), and what only some languages write
// (braces, semicolons, colons, let/var/const, then/do/done) is dropped: so a Python port of a
// JavaScript function reads much like it. Layout and comments are gone by construction.
//
// Why not a tokenizer library: the pass needs one stream across languages, not a highlighter's
// per-language tokens (which Prism or highlight.js would give, with hundreds of KB of grammars to
// load on the pre-commit path); the lexical rules it needs (names, numbers, strings, comments,
// operators) fit here, and the canonical mapping is the part no library does.

export type CodeLanguage = "python" | "c" | "shell" | "pseudo";

/** Token ids: small integers (hashing a stream of them is cheap). */
const IDS = new Map<string, number>();
function id(token: string): number {
  let n = IDS.get(token);
  if (n === undefined) {
    n = IDS.size + 1;
    IDS.set(token, n);
  }
  return n;
}

const V = id("V");
const N = id("N");
const S = id("S");

/** Keywords by their canonical spelling; a word mapped to "" is dropped. */
const KEYWORDS = new Map<string, string>([
  ["if", "if"],
  ["else", "else"],
  ["elif", "else if"],
  ["elsif", "else if"],
  ["elseif", "else if"],
  ["for", "for"],
  ["foreach", "for"],
  ["while", "while"],
  ["until", "while"],
  ["return", "return"],
  ["break", "break"],
  ["continue", "continue"],
  ["def", "fn"],
  ["function", "fn"],
  ["func", "fn"],
  ["fn", "fn"],
  ["lambda", "fn"],
  ["sub", "fn"],
  ["in", "in"],
  ["of", "in"],
  ["and", "and"],
  ["or", "or"],
  ["not", "not"],
  ["true", "true"],
  ["false", "false"],
  ["none", "null"],
  ["null", "null"],
  ["nil", "null"],
  ["undefined", "null"],
  ["let", ""],
  ["var", ""],
  ["const", ""],
  ["local", ""],
  ["my", ""],
  ["then", ""],
  ["do", ""],
  ["done", ""],
  ["fi", ""],
  ["end", ""],
  ["endif", ""],
  ["endfor", ""],
  ["endwhile", ""],
  ["begin", ""],
  ["pass", ""],
  ["new", ""],
]);

/** Operators, longest first; each with its canonical spelling ("" drops it). */
const OPERATORS: Array<[string, string]> = [
  ["**=", "**="],
  ["//=", "//="],
  [">>=", ">>="],
  ["<<=", "<<="],
  ["===", "=="],
  ["!==", "!="],
  ["**", "**"],
  ["==", "=="],
  ["!=", "!="],
  ["<=", "<="],
  [">=", ">="],
  ["+=", "+="],
  ["-=", "-="],
  ["*=", "*="],
  ["/=", "/="],
  ["%=", "%="],
  ["&&", "and"],
  ["||", "or"],
  [":=", "="],
  ["->", "->"],
  ["=>", "->"],
  ["++", "+= N"],
  ["--", "-= N"],
  ["<<", "<<"],
  [">>", ">>"],
  ["×", "*"],
  ["·", "*"],
  ["÷", "/"],
  ["≤", "<="],
  ["≥", ">="],
  ["≠", "!="],
  ["←", "="],
  ["−", "-"],
  ["!", "not"],
  ["{", ""],
  ["}", ""],
  [";", ""],
  [":", ""],
  ["$", ""],
  ["@", ""],
  ["\\", ""],
];
const SINGLE = "+-*/%<>=&|^~(),[].?";

const CANONICAL = new Map<string, number[]>();
function canonical(spelling: string): number[] {
  let ids = CANONICAL.get(spelling);
  if (ids === undefined) {
    ids = spelling === "" ? [] : spelling.split(" ").map((t) => (t === "N" ? N : id(t)));
    CANONICAL.set(spelling, ids);
  }
  return ids;
}

export interface CodeTokens {
  /** Canonical token ids. */
  ids: number[];
  /** The 1-based line of each token. */
  lines: number[];
}

/** Classes of the ASCII codes: a name's first character, a digit, a name's other characters. */
const NAME_START = 1;
const DIGIT = 2;
const NAME_PART = 4;
const CLASS = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const l = c | 32;
  if ((l >= 97 && l <= 122) || c === 95) CLASS[c] = NAME_START | NAME_PART;
  else if (c >= 48 && c <= 57) CLASS[c] = DIGIT | NAME_PART;
}
const UNICODE_START = /[\p{L}]/u;
const UNICODE_PART = /[\p{L}\p{N}]/u;
function classOf(code: number): number {
  if (code < 128) return code < 0 ? 0 : CLASS[code]!;
  const c = String.fromCharCode(code);
  return UNICODE_START.test(c) ? NAME_START | NAME_PART : UNICODE_PART.test(c) ? NAME_PART : 0;
}

/** Operators by their first character, longest first, with their canonical token ids. */
const BY_FIRST = new Map<number, Array<[string, number[]]>>();
for (const [spelling, canon] of [...OPERATORS, ...[...SINGLE].map((c): [string, string] => [c, c])]) {
  const list = BY_FIRST.get(spelling.charCodeAt(0)) ?? [];
  list.push([spelling, canonical(canon)]);
  BY_FIRST.set(spelling.charCodeAt(0), list);
}
/** The same for ASCII first characters, by code (undefined: no operator starts with it). */
const ASCII_OPERATORS: Array<Array<[string, number[]]> | undefined> = Array.from({ length: 128 }, (_, c) =>
  BY_FIRST.get(c),
);

function operatorAt(text: string, i: number, c: number): [string, number[]] | undefined {
  const list = c < 128 ? ASCII_OPERATORS[c] : BY_FIRST.get(c);
  if (list === undefined) return undefined;
  for (const entry of list) if (entry[0].length === 1 || text.startsWith(entry[0], i)) return entry;
  return undefined;
}

/** Where a comment starting at `i` ends (the newline stays), or -1 when none starts there. */
function commentEnd(text: string, i: number, code: number, language: CodeLanguage): number {
  if (code === 35 && language !== "c") {
    const nl = text.indexOf("\n", i);
    return nl < 0 ? text.length : nl;
  }
  if (code !== 47 || language === "python" || language === "shell") return -1;
  const next = text.charCodeAt(i + 1);
  if (next === 47 && language === "c") {
    const nl = text.indexOf("\n", i);
    return nl < 0 ? text.length : nl;
  }
  if (next === 42) {
    const close = text.indexOf("*/", i + 2);
    return close < 0 ? text.length : close + 2;
  }
  return -1;
}

/** Where a string starting at `i` (at its quote) ends. */
function stringEnd(text: string, i: number, quote: number): number {
  if (quote !== 96 && text.charCodeAt(i + 1) === quote && text.charCodeAt(i + 2) === quote) {
    const triple = text.slice(i, i + 3);
    const close = text.indexOf(triple, i + 3);
    return close < 0 ? text.length : close + 3;
  }
  for (let k = i + 1; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (c === 92) k++;
    else if (c === quote) return k + 1;
    else if (c === 10 && quote !== 96) return k;
  }
  return text.length;
}

/** The end of a number at `i`: digits, points, underscores, letters (hex, suffixes, exponents). */
function numberEnd(text: string, i: number): number {
  let k = i;
  while (k < text.length) {
    const c = text.charCodeAt(k);
    if (c < 128 && (CLASS[c]! & NAME_PART) !== 0) k++;
    else if (c === 46) k++;
    else if ((c === 43 || c === 45) && (text.charCodeAt(k - 1) | 32) === 101) k++;
    else break;
  }
  return k;
}

const LONGEST_KEYWORD = Math.max(...[...KEYWORDS.keys()].map((k) => k.length));
const KEYWORD_FIRST = new Set([...KEYWORDS.keys()].map((k) => k.charCodeAt(0)));

function keywordOf(word: string, upper: boolean): string | undefined {
  return KEYWORDS.get(word) ?? (upper ? KEYWORDS.get(word.toLowerCase()) : undefined);
}

function pushAll(ids: number[], lines: number[], tokens: readonly number[], line: number): void {
  for (const t of tokens) {
    ids.push(t);
    lines.push(line);
  }
}

/** Reads `text` as `language` into canonical tokens. Never throws: unknown characters are skipped. */
export function codeTokens(text: string, language: CodeLanguage, firstLine = 1): CodeTokens {
  const ids: number[] = [];
  const lines: number[] = [];
  let line = firstLine;
  let i = 0;
  const length = text.length;
  while (i < length) {
    const c = text.charCodeAt(i);
    if (c === 10) {
      line++;
      i++;
      continue;
    }
    if (c === 32 || c === 9 || c === 13) {
      i++;
      continue;
    }
    const k = c < 128 ? CLASS[c]! : classOf(c);
    if (k & NAME_START) {
      let e = i + 1;
      let upper = c >= 65 && c <= 90;
      for (; e < length; e++) {
        const d = text.charCodeAt(e);
        if (d < 128 ? (CLASS[d]! & NAME_PART) === 0 : (classOf(d) & NAME_PART) === 0) break;
        if (d >= 65 && d <= 90) upper = true;
      }
      // Only a short word whose first letter starts a keyword can be one (no string made otherwise).
      const keyword =
        e - i <= LONGEST_KEYWORD && KEYWORD_FIRST.has(c | 32)
          ? keywordOf(text.slice(i, e), upper)
          : undefined;
      if (keyword === undefined) {
        ids.push(V);
        lines.push(line);
      } else pushAll(ids, lines, canonical(keyword), line);
      i = e;
      continue;
    }
    if (k & DIGIT || (c === 46 && classOf(text.charCodeAt(i + 1)) & DIGIT)) {
      ids.push(N);
      lines.push(line);
      i = numberEnd(text, i + 1);
      continue;
    }
    const comment = commentEnd(text, i, c, language);
    if (comment >= 0) {
      i = comment;
      continue;
    }
    if (c === 34 || c === 39 || c === 96) {
      // Shell quotes hold code as often as text (awk '...', $(( ... ))): their content is read.
      if (language === "shell") {
        i++;
        continue;
      }
      const end = stringEnd(text, i, c);
      ids.push(S);
      lines.push(line);
      for (let n = text.indexOf("\n", i); n >= 0 && n < end; n = text.indexOf("\n", n + 1)) line++;
      i = end;
      continue;
    }
    const op = operatorAt(text, i, c);
    if (op) {
      pushAll(ids, lines, op[1], line);
      i += op[0].length;
      continue;
    }
    i++;
  }
  return { ids, lines };
}
