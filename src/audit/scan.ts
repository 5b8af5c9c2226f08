// Runs every matcher over a document: one word pass reads numbers, spelled-out numbers, base64 runs,
// prose shingles and the anchors of literals; literals are then matched around their anchors. The
// same again on decoded wrappers, two deep.

import { base64Candidates, base64Span, type DecodedView, decodeBase64, inlineWrappers } from "./decode.ts";
import type { AuditDocument } from "./document.ts";
import type { FormKind } from "./forms.ts";
import { docOffset, normalise, type TextView } from "./normalise.ts";
import { NumberWordReader } from "./number-words.ts";
import type { NumberLiteral } from "./numbers.ts";
import { type RuleSet, WORD_LITERAL, WORD_NUMBER } from "./rules.ts";
import { ShingleReader } from "./shingles.ts";
import { type TokenPassOptions, tokenPass } from "./token-pass.ts";
import { WASM_MIN_CHARS, wasmPass } from "./wasm-pass.ts";
import { isWordCode } from "./words.ts";

export const MAX_DECODE_DEPTH = 2;
/** Bare numbers with at least this many significant digits are unlikely by chance. */
export const DISTINCTIVE_SIG = 5;

export interface Hit {
  item: number;
  /** Document offsets. */
  start: number;
  end: number;
  view: TextView;
  vStart: number;
  vEnd: number;
  /** Normalised matched value: the pattern, or the number form's value. */
  value: string;
  /** The text as found (decoded when inside a wrapper). */
  matched: string;
  form?: FormKind;
  /** A unit, operator or notation that marks the number as the gated use. */
  explicit: boolean;
  /** Unlikely by chance (a long literal, a number with many digits). */
  distinctive: boolean;
  spelled: boolean;
}

function isBoundary(text: string, at: number): boolean {
  return at < 0 || at >= text.length || !isWordCode(text.charCodeAt(at));
}

export function scanDocument(doc: AuditDocument, rules: RuleSet): Hit[] {
  const hits: Hit[] = [];
  const top = normalise(doc.text, [], undefined, doc.ascii);
  scanView(doc, rules, top, 0, hits);
  return hits;
}

function scanView(
  doc: AuditDocument,
  rules: RuleSet,
  view: TextView | DecodedView,
  depth: number,
  hits: Hit[],
): void {
  const text = view.text;
  const focus = "focus" in view ? view.focus : undefined;
  const push = (
    item: number,
    vStart: number,
    vEnd: number,
    extra: Omit<Hit, "item" | "start" | "end" | "view" | "vStart" | "vEnd" | "matched">,
  ) => {
    if (focus && (vEnd <= focus[0] || vStart >= focus[1])) return;
    const start = docOffset(view, vStart);
    const end = Math.max(start, docOffset(view, vEnd));
    const matched = view.via.length > 0 ? text.slice(vStart, vEnd) : doc.text.slice(start, end);
    hits.push({ item, start, end, view, vStart, vEnd, matched, ...extra });
  };

  const onNumber = (lit: NumberLiteral) => {
    rules.forms.match(lit, (form) => {
      push(form.item, lit.start, lit.end, {
        value: form.key,
        form: form.kind,
        explicit: lit.unit !== "none" || lit.sci || lit.times,
        distinctive: lit.sig >= DISTINCTIVE_SIG && !lit.words,
        spelled: lit.words,
      });
    });
  };
  const runs: Array<[number, number]> = [];
  const literalAnchors: number[] = [];
  const numbers = rules.forms.size > 0 ? onNumber : undefined;
  const reader = numbers ? new NumberWordReader(text, numbers) : undefined;
  const prose = rules.shingles ? new ShingleReader(rules.shingles, text) : undefined;
  const options: TokenPassOptions = {
    delimiter: doc.delimiter?.charCodeAt(0) ?? -1,
    onNumber: numbers,
    codes: rules.forms.codes,
    words: rules.words.size > 0 ? rules.words : undefined,
    onWord: (flags, hash, start, end) => {
      if (flags & WORD_NUMBER) reader?.word(hash, start, end);
      if (flags & WORD_LITERAL) literalAnchors.push(start, end);
    },
    everyWord: prose,
    onRun: (a, b) => runs.push([a, b]),
  };
  const ascii = view.map === undefined && view.via.length === 0 && doc.ascii;
  const inWasm =
    text.length >= WASM_MIN_CHARS &&
    wasmPass(
      text,
      ascii,
      options,
      prose && rules.shingles ? { reader: prose, set: rules.shingles } : undefined,
    );
  if (!inWasm) tokenPass(text, options);
  reader?.finish();
  rules.literals.scan(
    text,
    (pattern, s, e) => {
      const owner = rules.owners[pattern]!;
      const value = owner.value;
      if (isWordCode(value.charCodeAt(0)) && !isBoundary(text, s - 1)) return;
      if (isWordCode(value.charCodeAt(value.length - 1)) && !isBoundary(text, e)) return;
      push(owner.item, s, e, { value, explicit: false, distinctive: true, spelled: false });
    },
    literalAnchors,
  );

  for (const list of rules.lists) {
    list.pattern.lastIndex = 0;
    for (let m = list.pattern.exec(text); m; m = list.pattern.exec(text)) {
      push(list.item, m.index, m.index + m[0].length, {
        value: list.value,
        explicit: false,
        distinctive: true,
        spelled: false,
      });
    }
  }

  for (const run of prose?.finish() ?? []) {
    push(rules.proseItem, run.start, run.end, {
      value: `${run.words} words`,
      explicit: false,
      distinctive: true,
      spelled: false,
    });
  }

  if (depth >= MAX_DECODE_DEPTH) return;
  let decodedUntil = -1;
  for (const [start, end] of base64Candidates(text, runs)) {
    if (start < decodedUntil) continue;
    const span = base64Span(text, start, end);
    if (!span || (focus && (span[1] <= focus[0] || span[0] >= focus[1]))) continue;
    decodedUntil = span[1];
    const child = decodeBase64(view, span[0], span[1]);
    if (child) scanView(doc, rules, child, depth + 1, hits);
  }
  for (const child of inlineWrappers(view, focus)) scanView(doc, rules, child, depth + 1, hits);
}
