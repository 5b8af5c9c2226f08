// The equivalent forms of each gated constant, kept sorted so a literal is matched by binary search:
// 0.12 -> 0.12 (also 12%, 1200 bp, 3/25), bare 12, 1.12, 0.88; 235 -> 235 (also 2.35e2), 1/235.
import type { NumberLiteral } from "./numbers.ts";

export type FormKind = "value" | "percent" | "multiplier" | "complement" | "reciprocal" | "equivalent";

export interface Form {
  value: number;
  /** Index of the item in the compiled rule set. */
  item: number;
  kind: FormKind;
  /** "kind:value", the normalised value findings are fingerprinted with. */
  key: string;
}

export interface GatedNumber {
  item: number;
  value: number;
  as: "rate" | "quantity";
  equivalents: readonly number[];
}

/** A displayed rounding (not the exact value) must show at least this many significant digits. */
export const ROUNDING_MIN_SIG = 3;

export function formsOf(n: GatedNumber): Form[] {
  const forms: Array<Omit<Form, "key">> = [{ value: n.value, item: n.item, kind: "value" }];
  if (n.as === "rate") {
    forms.push({ value: n.value * 100, item: n.item, kind: "percent" });
    forms.push({ value: 1 + n.value, item: n.item, kind: "multiplier" });
    forms.push({ value: 1 - n.value, item: n.item, kind: "complement" });
  } else if (n.value !== 0 && !n.equivalents.some((e) => Math.abs(e - 1 / n.value) <= tolerance(e))) {
    // A declared equivalent equal to the reciprocal takes its place (a whole-number reciprocal is at
    // most a warning; declared, it is judged like the value).
    forms.push({ value: 1 / n.value, item: n.item, kind: "reciprocal" });
  }
  for (const e of n.equivalents) forms.push({ value: e, item: n.item, kind: "equivalent" });
  // Round away binary noise (1 + 0.12 = 1.1200000000000001) so comparisons stay exact.
  return forms.map((f) => ({
    ...f,
    value: Number(f.value.toPrecision(15)),
    key: `${f.kind}:${Number(f.value.toPrecision(12))}`,
  }));
}

function tolerance(value: number): number {
  return 1e-9 * Math.max(1, Math.abs(value));
}

/** Significant digits the leading code keeps. */
export const CODE_DIGITS = 3;

/** The first three significant digits of |value| as 100-999 (1.2 is 120), or 0 for zero. */
export function leadingCode(value: number): number {
  const digits = Math.abs(value)
    .toExponential(14)
    .replace(/\.|e.*$/g, "");
  return value === 0 ? 0 : Number(digits.slice(0, CODE_DIGITS));
}

export class FormIndex {
  private readonly values: Float64Array;
  private readonly forms: Form[];
  /**
   * Leading-digit codes (see leadingCode) a literal needs to show some form, exactly or as any
   * displayed rounding: a prefilter that lets the character pass skip most numbers unread.
   */
  readonly codes = new Uint8Array(10 ** CODE_DIGITS);

  constructor(numbers: readonly GatedNumber[]) {
    this.forms = numbers.flatMap(formsOf).sort((a, b) => a.value - b.value);
    this.values = Float64Array.from(this.forms.map((f) => f.value));
    for (const f of this.forms) {
      // The exact value, and every displayed rounding (ROUNDING_MIN_SIG digits or more written):
      // to n >= 3 digits, or to 2 when rounding carries into a new digit (0.0999 shows as 0.100).
      this.codes[leadingCode(f.value)] = 1;
      for (let n = 2; n <= 15; n++) {
        const code = leadingCode(Number(f.value.toPrecision(n)));
        if (n >= ROUNDING_MIN_SIG || code === 100) this.codes[code] = 1;
      }
    }
  }

  get size(): number {
    return this.forms.length;
  }

  /** Calls `onForm` for every form the literal shows, exactly or as a displayed rounding. */
  match(lit: NumberLiteral, onForm: (form: Form, exact: boolean) => void): void {
    const values = this.values;
    if (values.length === 0) return;
    const v = lit.value;
    const exactTol = tolerance(v);
    const tol = Math.max(lit.halfUnit * (1 + 1e-9), exactTol);
    const low = v - tol;
    let lo = 0;
    let hi = values.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (values[mid]! < low) lo = mid + 1;
      else hi = mid;
    }
    for (let k = lo; k < values.length && values[k]! <= v + tol; k++) {
      const form = this.forms[k]!;
      if (form.kind === "percent" && lit.unit !== "none") continue;
      const exact = Math.abs(values[k]! - v) <= exactTol;
      if (!exact && lit.sig < ROUNDING_MIN_SIG) continue;
      onForm(form, exact);
    }
  }

  /** True when the value equals (or rounds to) a form of any gated number. */
  covers(lit: NumberLiteral): boolean {
    let found = false;
    this.match(lit, () => {
      found = true;
    });
    return found;
  }
}
