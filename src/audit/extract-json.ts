// JSON and JSON Lines documents: string escapes decoded (with an offset map back to the file), and the
// key path of any offset ("rates[].overhead", or "... (key)" inside a key) as structural context.
import { type AuditDocument, textLocator } from "./document.ts";

const SIMPLE_ESCAPES: Record<string, string> = {
  '"': '"',
  "\\": "\\",
  "/": "/",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
};

/** The file text with escapes inside strings decoded; map[i] is the file offset of text[i]. */
export function unescapeJson(fileText: string): { text: string; map?: Int32Array } {
  if (!fileText.includes("\\")) return { text: fileText };
  const parts: string[] = [];
  const map: number[] = [];
  let inString = false;
  let runStart = 0;
  const flush = (to: number) => {
    parts.push(fileText.slice(runStart, to));
    for (let k = runStart; k < to; k++) map.push(k);
  };
  for (let i = 0; i < fileText.length; i++) {
    const c = fileText[i];
    if (!inString) {
      if (c === '"') inString = true;
      continue;
    }
    if (c === '"') {
      inString = false;
    } else if (c === "\\") {
      flush(i);
      const e = fileText[i + 1] ?? "";
      let decoded = SIMPLE_ESCAPES[e];
      let length = 2;
      if (e === "u") {
        let code = Number.parseInt(fileText.slice(i + 2, i + 6), 16);
        length = 6;
        if (code >= 0xd800 && code <= 0xdbff && fileText.slice(i + 6, i + 8) === "\\u") {
          const low = Number.parseInt(fileText.slice(i + 8, i + 12), 16);
          if (low >= 0xdc00 && low <= 0xdfff) {
            code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
            length = 12;
          }
        }
        decoded = Number.isNaN(code) ? undefined : String.fromCodePoint(code);
      }
      if (decoded === undefined) {
        decoded = fileText.slice(i, i + 2);
      }
      parts.push(decoded);
      for (let k = 0; k < decoded.length; k++) map.push(i);
      i += length - 1;
      runStart = i + 1;
    }
  }
  flush(fileText.length);
  map.push(fileText.length);
  return { text: parts.join(""), map: Int32Array.from(map) };
}

/** Quotes and the characters of JSON's structure: { } [ ] : , (all else is skipped). */
const STRUCTURAL = new Uint8Array(128);
for (const c of '"{}[]:,') STRUCTURAL[c.charCodeAt(0)] = 1;

/**
 * Where the string whose opening quote is at text[open] closes: the first quote no backslash
 * escapes (the text's length when none does).
 */
function closingQuote(text: string, open: number): number {
  let j = open + 1;
  for (let c = text.charCodeAt(j); j < text.length && c !== 34; c = text.charCodeAt(j)) j += c === 92 ? 2 : 1;
  return Math.min(j, text.length);
}

/** A key as written in the file (text[start, end)), its escapes decoded. */
function decodeKey(text: string, start: number, end: number): string {
  const raw = text.slice(start, end);
  if (!raw.includes("\\")) return raw;
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return raw;
  }
}

/**
 * Key path at file offsets, resumable: asking for increasing offsets costs one pass overall. The
 * open objects and arrays are kept per depth (no object per frame), keys as file spans decoded only
 * when a path is asked for.
 */
export class JsonPathWalker {
  private pos = 0;
  private depth = 0;
  private readonly isArray: boolean[] = [];
  private readonly expectKey: boolean[] = [];
  /** The span of each frame's last key (start -1: none yet). */
  private readonly keyStart: number[] = [];
  private readonly keyEnd: number[] = [];

  constructor(private readonly text: string) {}

  private path(insideKey: boolean): string {
    let path = "";
    let parts = 0;
    for (let d = 0; d < this.depth; d++) {
      if (this.isArray[d]) path += "[]";
      else if (this.keyStart[d]! >= 0) {
        const key = decodeKey(this.text, this.keyStart[d]!, this.keyEnd[d]!);
        path += parts > 0 ? `.${key}` : key;
      } else continue;
      parts++;
    }
    path ||= "(root)";
    return insideKey ? `${path} (key)` : path;
  }

  at(offset: number): string {
    if (offset < this.pos) {
      this.pos = 0;
      this.depth = 0;
    }
    const text = this.text;
    const length = text.length;
    let i = this.pos;
    while (i < length) {
      // Only quotes and structure characters matter: skip to the next one, or to the offset.
      let c = text.charCodeAt(i);
      while (i < offset && (c >= 128 || STRUCTURAL[c] === 0)) c = text.charCodeAt(++i);
      if (i >= length) break;
      if (i === offset && c !== 34) {
        this.pos = i;
        return this.path(false);
      }
      const top = this.depth - 1;
      if (c === 34) {
        const j = closingQuote(text, i);
        const isKey = top >= 0 && !this.isArray[top] && this.expectKey[top]!;
        if (isKey) {
          this.keyStart[top] = i + 1;
          this.keyEnd[top] = j;
        }
        if (offset <= j) {
          this.pos = i;
          return this.path(isKey);
        }
        i = j + 1;
        continue;
      }
      if (c === 123 || c === 91) {
        const d = this.depth++;
        this.isArray[d] = c === 91;
        this.expectKey[d] = c === 123;
        this.keyStart[d] = -1;
      } else if (c === 125 || c === 93) {
        if (this.depth > 0) this.depth--;
      } else if (c === 58 && top >= 0 && !this.isArray[top]) this.expectKey[top] = false;
      else if (c === 44 && top >= 0 && !this.isArray[top]) this.expectKey[top] = true;
      i++;
    }
    this.pos = i;
    return this.path(false);
  }
}

/**
 * Whether file offsets lie inside a string JsonPathWalker could read as a key: any string but one
 * right after a colon (a value). Quotes are paired as the walker pairs them (closingQuote).
 * Resumable: asking for increasing offsets costs one pass overall.
 */
export class KeyStrings {
  /** Where reading goes on: outside strings, or at the opening quote of the string last asked into. */
  private pos = 0;

  constructor(private readonly text: string) {}

  at(offset: number): boolean {
    if (offset < this.pos) this.pos = 0;
    const text = this.text;
    let i = this.pos;
    while (i < offset) {
      if (text.charCodeAt(i) !== 34) {
        i++;
        continue;
      }
      const close = closingQuote(text, i);
      if (offset <= close) {
        this.pos = i;
        let before = i - 1;
        while (before >= 0 && " \t\r\n".includes(text[before]!)) before--;
        return text[before] !== ":";
      }
      i = close + 1;
    }
    this.pos = i;
    return false;
  }
}

export function jsonDocument(file: string, fileText: string, ascii: boolean, lines: boolean): AuditDocument {
  const { text, map } = unescapeJson(fileText);
  const walker = new JsonPathWalker(fileText);
  const keys = new KeyStrings(fileText);
  const fileOffset = (offset: number) => (map ? map[Math.min(offset, map.length - 1)]! : offset);
  return {
    file,
    text,
    ascii: ascii && !map,
    delimiter: ",",
    lineContext: lines,
    locate: textLocator(fileText, map),
    structure: (offset) => walker.at(fileOffset(offset)),
    inStructure: (offset) => keys.at(fileOffset(offset)),
  };
}
