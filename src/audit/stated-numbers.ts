// The numbers a text states, read as the leak audit reads them (12%, 1,200, 3/25, twelve percent),
// each with its place and whether it shows one of the given values in any of their forms (a rate
// 0.12 as 0.12, 12%, 1.12 or 0.88; a quantity as itself or its reciprocal). Trivially common
// numbers (integers 0-10, 100, 1000) are left out. The audit's coverage uses the same reading;
// `kgate check` asks which numbers of an artefact no convention of the verifier holds.
import { textLocator } from "./document.ts";
import { FormIndex } from "./forms.ts";
import { normalise } from "./normalise.ts";
import { type NumberLiteral, scanNumbers } from "./numbers.ts";
import { artefactProse } from "./rules.ts";

export interface StatedNumber {
  /** 1-based line and column in the text. */
  line: number;
  column: number;
  /** The literal as written. */
  text: string;
  value: number;
  /** A form of one of the given values shows it. */
  held: boolean;
}

export function isTrivialNumber(lit: Pick<NumberLiteral, "value">): boolean {
  const v = lit.value;
  return (Number.isInteger(v) && v >= 0 && v <= 10) || v === 100 || v === 1000;
}

/** The values as gated numbers: a rate when 0 < |v| < 1 (the audit's default), else a quantity. */
export function valueForms(values: readonly number[]): FormIndex {
  return new FormIndex(
    values.map((value, item) => ({
      item,
      value,
      as: value !== 0 && Math.abs(value) < 1 ? ("rate" as const) : ("quantity" as const),
      equivalents: [],
    })),
  );
}

/** Every non-trivial number of `text` (a canary comment aside), in order. */
export function statedNumbers(text: string, values: readonly number[]): StatedNumber[] {
  const prose = artefactProse(text);
  const view = normalise(prose);
  const locate = textLocator(prose, view.map);
  const forms = valueForms(values);
  const out: StatedNumber[] = [];
  scanNumbers(view.text, (lit) => {
    if (isTrivialNumber(lit)) return;
    const start = view.map ? view.map[lit.start]! : lit.start;
    const end = view.map ? view.map[lit.end]! : lit.end;
    const where = locate(lit.start, lit.end);
    out.push({
      line: where.line ?? 1,
      column: where.column ?? 1,
      text: prose.slice(start, end),
      value: lit.value,
      held: forms.covers(lit),
    });
  });
  return out;
}
