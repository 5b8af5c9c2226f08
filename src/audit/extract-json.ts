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

interface Frame {
  array: boolean;
  key?: string;
  expectKey: boolean;
}

/** Key path at file offsets, resumable: asking for increasing offsets costs one pass overall. */
export class JsonPathWalker {
  private pos = 0;
  private stack: Frame[] = [];

  constructor(private readonly text: string) {}

  private path(insideKey: boolean): string {
    const parts: string[] = [];
    for (const frame of this.stack) {
      if (frame.array) parts.push("[]");
      else if (frame.key !== undefined) parts.push(parts.length ? `.${frame.key}` : frame.key);
    }
    const path = parts.join("") || "(root)";
    return insideKey ? `${path} (key)` : path;
  }

  at(offset: number): string {
    if (offset < this.pos) {
      this.pos = 0;
      this.stack = [];
    }
    const text = this.text;
    let i = this.pos;
    while (i < text.length) {
      const c = text.charCodeAt(i);
      // Only quotes and structure characters matter.
      if (c !== 34 && c !== 123 && c !== 125 && c !== 91 && c !== 93 && c !== 58 && c !== 44) {
        if (offset <= i) {
          this.pos = i;
          return this.path(false);
        }
        i++;
        continue;
      }
      const top = this.stack.at(-1);
      if (c === 34) {
        let j = text.indexOf('"', i + 1);
        while (j > 0 && isEscaped(text, j)) j = text.indexOf('"', j + 1);
        if (j < 0) j = text.length;
        const isKey = top !== undefined && !top.array && top.expectKey;
        if (isKey) {
          const raw = text.slice(i + 1, j);
          try {
            top.key = raw.includes("\\") ? (JSON.parse(`"${raw}"`) as string) : raw;
          } catch {
            top.key = raw;
          }
        }
        if (offset <= j) {
          this.pos = i;
          return this.path(isKey);
        }
        i = j + 1;
        continue;
      }
      if (offset <= i) {
        this.pos = i;
        return this.path(false);
      }
      if (c === 123 || c === 91) this.stack.push({ array: c === 91, expectKey: c === 123 });
      else if (c === 125 || c === 93) this.stack.pop();
      else if (c === 58 && top && !top.array) top.expectKey = false;
      else if (c === 44 && top && !top.array) top.expectKey = true;
      i++;
    }
    this.pos = i;
    return this.path(false);
  }
}

/**
 * Whether file offsets lie inside a string JsonPathWalker could read as a key: any string but one
 * right after a colon (a value). Quotes are paired as the walker pairs them. Resumable: asking for
 * increasing offsets costs one pass overall.
 */
export class KeyStrings {
  private pos = 0;
  /** The opening quote of the string `pos` is in, or -1. */
  private open = -1;

  constructor(private readonly text: string) {}

  at(offset: number): boolean {
    if (offset < this.pos) {
      this.pos = 0;
      this.open = -1;
    }
    const text = this.text;
    for (let q = text.indexOf('"', this.pos); q >= 0 && q < offset; q = text.indexOf('"', q + 1)) {
      if (this.open < 0) this.open = q;
      else if (!isEscaped(text, q)) this.open = -1;
    }
    this.pos = offset;
    if (this.open < 0) return false;
    let before = this.open - 1;
    while (before >= 0 && " \t\r\n".includes(text[before]!)) before--;
    return text[before] !== ":";
  }
}

/** True when the quote at text[at] is escaped by an odd number of backslashes. */
function isEscaped(text: string, at: number): boolean {
  let n = 0;
  for (let k = at - 1; k >= 0 && text.charCodeAt(k) === 92; k--) n++;
  return n % 2 === 1;
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
