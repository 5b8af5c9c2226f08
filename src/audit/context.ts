// Context gating: is a match next to one of its item's keywords, or written with an arithmetic operator?
import type { AuditDocument } from "./document.ts";
import type { TextView } from "./normalise.ts";
import { isWordCode } from "./words.ts";

/** Characters each side of a match that count as "near". */
export const CONTEXT_WINDOW = 80;

/** The normalised text around view[vStart, vEnd): within the line for tables, else a fixed window. */
export function contextWindow(doc: AuditDocument, view: TextView, vStart: number, vEnd: number): string {
  const text = view.text;
  let a = Math.max(0, vStart - CONTEXT_WINDOW);
  let b = Math.min(text.length, vEnd + CONTEXT_WINDOW);
  if (doc.lineContext) {
    const nl = text.lastIndexOf("\n", vStart - 1);
    if (nl >= a) a = nl + 1;
    const next = text.indexOf("\n", vEnd);
    if (next >= 0 && next < b) b = next;
  }
  return text.slice(a, b).toLowerCase();
}

/** The first keyword that starts a word in `text`, if any. */
export function findKeyword(text: string, keywords: readonly string[]): string | undefined {
  for (const keyword of keywords) {
    let at = text.indexOf(keyword);
    while (at >= 0) {
      if (at === 0 || !isWordCode(text.charCodeAt(at - 1))) return keyword;
      at = text.indexOf(keyword, at + 1);
    }
  }
  return undefined;
}

const OPERATOR_BEFORE =
  /(?:(?:multipl|divid)\w*\b[^.;:\n]{0,30}\bby *|(?:^|[ (])(?:times|x) *|[×÷^/] *|(?<!\*)\* *)$/;
const OPERATOR_AFTER = /^ *(?:[×÷^]|\*(?!\*)|\/(?!\d)|times\b|x\b)/;

/**
 * A name assigned the value in code right before it: `a=0.975` (a default or keyword argument),
 * `margin = 0.65`, `alpha: float = 0.975`; not a comparison (`==`, `<=`, `!=`, `>=`).
 */
const ASSIGNED_BEFORE = /(?:^|[^\w.])[a-z_][\w]*\s*(?::\s*[a-z_][\w.[\], ]*)?=\s*[-+]?$/;

export function assignedNear(text: string, vStart: number): boolean {
  return ASSIGNED_BEFORE.test(text.slice(Math.max(0, vStart - 48), vStart).toLowerCase());
}

/** An arithmetic operator right before or after view[vStart, vEnd) ("× 1.12", "divide by 235", "1.12 * cost"). */
export function operatorNear(text: string, vStart: number, vEnd: number): boolean {
  const before = text.slice(Math.max(0, vStart - 48), vStart).toLowerCase();
  const after = text.slice(vEnd, vEnd + 12).toLowerCase();
  return OPERATOR_BEFORE.test(before) || OPERATOR_AFTER.test(after);
}
