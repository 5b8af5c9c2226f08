// Hits -> findings: context gating decides the severity, bare look-alikes are counted per file
// instead of listed one by one, alias tables need k entries, and every finding gets a fingerprint.
import { createHash } from "node:crypto";
import { assignedNear, contextWindow, findKeyword, operatorNear } from "./context.ts";
import type { AuditDocument, Location } from "./document.ts";
import type { FormKind } from "./forms.ts";
import type { RuleId, RuleSet } from "./rules.ts";
import type { Hit } from "./scan.ts";
import { eachNeedle, WASM_MIN_CHARS } from "./wasm-pass.ts";
import { forEachWord } from "./words.ts";

export type Severity = "error" | "warning";

export interface Finding {
  rule: RuleId;
  severity: Severity;
  task: string;
  /** The gated item, for item rules. */
  item?: string;
  /** Project-relative file. */
  file: string;
  location: Location;
  /** Wrappers decoded to reach the match, outermost first. */
  via: string[];
  message: string;
  /** The matched text (formatters redact it unless asked to show it). */
  match?: string;
  /** A second place the finding is about (artefact-code: the artefact's code block). */
  related?: { file: string; location: Location };
  /** artefact-code: the share of the block's fingerprints the file holds (0-1). */
  similarity?: number;
  /** How many occurrences a counted finding stands for. */
  count?: number;
  /** Content fingerprint (rule, item, path, normalised value, context; no line numbers). */
  fingerprint: string;
  suppressed?: { reason: string; expires?: string };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

const PRINTABLE_ASCII = /^[ -~]+$/;

/**
 * Which of `keywords` (lower case) occur in `text`, as findKeyword compares (lower case,
 * substring): one case-insensitive pass for all of them, overlapping occurrences included. Only
 * occurrences at offsets `accept` takes count, when given. A long text known to be all ASCII
 * (`ascii`) with ASCII keywords is searched in WebAssembly.
 */
export function keywordsIn(
  text: string,
  keywords: readonly string[],
  accept?: (offset: number) => boolean,
  ascii = false,
): Set<string> {
  const found = new Set<string>();
  if (keywords.length === 0) return found;
  if (ascii && text.length >= WASM_MIN_CHARS && keywords.every((k) => PRINTABLE_ASCII.test(k))) {
    const searched = eachNeedle(text, keywords, (at, needle) => {
      if (!accept || accept(at)) found.add(keywords[needle]!);
      return found.size < keywords.length;
    });
    if (searched) return found;
  }
  const longest = Math.max(...keywords.map((k) => k.length));
  const pattern = new RegExp(keywords.map(escapeRegExp).join("|"), "gi");
  for (let m = pattern.exec(text); m && found.size < keywords.length; m = pattern.exec(text)) {
    pattern.lastIndex = m.index + 1;
    if (accept && !accept(m.index)) continue;
    const here = text.slice(m.index, m.index + longest).toLowerCase();
    for (const keyword of keywords) if (here.startsWith(keyword)) found.add(keyword);
  }
  return found;
}

export function fingerprint(parts: readonly string[]): string {
  return createHash("sha256").update(parts.join("\0")).digest("hex").slice(0, 32);
}

const FORM_LABEL: Record<FormKind, string> = {
  value: "its value",
  percent: "its value in percent",
  multiplier: "its multiplier 1 + r",
  complement: "its complement 1 - r",
  reciprocal: "its reciprocal",
  equivalent: "a declared equivalent",
};

const RULE_LABEL: Partial<Record<RuleId, string>> = {
  "gated-string": "gated string",
  "gated-phrase": "gated phrase",
  "artefact-canary": "the artefact's canary GUID",
  "artefact-name": "the artefact's file name or path",
  "artefact-title": "the artefact's title",
  "artefact-id": "the artefact's identifier",
};

/** Three words each side of a match: a line-number-free context for fingerprints of prose matches. */
function nearbyWords(hit: Hit): string {
  const text = hit.view.text;
  const words: string[] = [];
  const a = Math.max(0, hit.vStart - 40);
  const b = Math.min(text.length, hit.vEnd + 40);
  const before: string[] = [];
  const after: string[] = [];
  forEachWord(
    text,
    (_h, s, e) => {
      if (e <= hit.vStart) before.push(text.slice(s, e).toLowerCase());
      else if (s >= hit.vEnd) after.push(text.slice(s, e).toLowerCase());
    },
    a,
    b,
  );
  words.push(...before.slice(-3), "|", ...after.slice(0, 3));
  return words.join(" ");
}

/** The first of `tokens` that is a word of a structural context (snake, kebab or camel case split). */
function sharedName(structure: string | undefined, tokens: readonly string[]): string | undefined {
  if (!structure) return undefined;
  const words = new Set(
    structure
      .replace(/([a-z])([A-Z])/g, "$1 $2")
      .toLowerCase()
      .split(/[^\p{L}\p{N}]+/u),
  );
  return tokens.find((t) => words.has(t));
}

function viaSuffix(via: readonly string[]): string {
  return via.length ? ` (inside ${via.join(" inside ")})` : "";
}

/** Turns the hits of one document into findings (alias tables are handled per file by `tableFindings`). */
export function findingsFromHits(task: string, doc: AuditDocument, rules: RuleSet, hits: Hit[]): Finding[] {
  const findings: Finding[] = [];
  const counted = new Map<string, Finding>();
  // Whether an item's keywords occur in the text structural contexts come from (a table's header;
  // a JSON document's keys): when not, the structure lookup is spared. One pass finds the keywords
  // of every item at once.
  let present: Set<string> | undefined;
  const mayBeInStructure = (hit: Hit, keywords: readonly string[]) => {
    if (hit.view.via.length > 0) return true;
    if (present === undefined) {
      const all = [...new Set(rules.items.flatMap((i) => [...i.context, ...(i.nameTokens ?? [])]))];
      present = doc.structureText
        ? keywordsIn(doc.structureText(), all)
        : keywordsIn(doc.text, all, (offset) => doc.inStructure?.(offset) ?? true, doc.ascii);
    }
    return keywords.some((keyword) => present!.has(keyword));
  };
  const seen = new Set<string>();
  // Longest first at each start, so a match inside a longer one of the same item is dropped.
  hits.sort((x, y) => x.start - y.start || y.end - x.end);
  const reach = new Map<string, number>();
  for (const hit of hits) {
    const item = rules.items[hit.item]!;
    if (item.rule === "alias-table") continue;
    const via = hit.view.via.join("/");
    const key = `${hit.item}:${hit.start}:${hit.end}:${via}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const itemKey = `${hit.item}:${via}`;
    if ((reach.get(itemKey) ?? -1) >= hit.end) continue;
    reach.set(itemKey, hit.end);
    let structure: string | undefined | null = null;
    const structureOf = () => {
      if (structure === null) structure = doc.structure(hit.start);
      return structure;
    };
    let keyword: string | undefined;
    if (item.context.length > 0) {
      keyword = findKeyword(contextWindow(doc, hit.view, hit.vStart, hit.vEnd), item.context);
      if (keyword === undefined && mayBeInStructure(hit, item.context))
        keyword = findKeyword(structureOf()?.toLowerCase() ?? "", item.context);
    }
    // A column or key path that shares a word with the item's name ("alpha" for "filter-alpha").
    if (keyword === undefined && item.nameTokens?.length && mayBeInStructure(hit, item.nameTokens))
      keyword = sharedName(structureOf(), item.nameTokens);
    const isNumber = item.rule === "gated-number";
    const operator =
      isNumber &&
      (!hit.explicit || item.unitsNeedContext === true) &&
      operatorNear(hit.view.text, hit.vStart, hit.vEnd);
    // A constant assigned in code (a default or keyword argument, a module constant) is the gated use.
    const assigned = isNumber && !operator && assignedNear(hit.view.text, hit.vStart);
    const unitCounts = hit.explicit && !item.unitsNeedContext;
    // A whole number that only equals the reciprocal of a gated value below 1 (a rounding step 0.05
    // -> 20, a cushion 1/12 -> 12) reads as an ordinary count ("20 pallets", "2 decimals", "12
    // months"): at most a warning, whatever sits near it; declared in `equivalents` it is an error.
    const reciprocalCount =
      isNumber &&
      hit.form === "reciprocal" &&
      !hit.explicit &&
      Number.isInteger(Number(hit.value.slice(hit.value.indexOf(":") + 1)));
    const full = reciprocalCount
      ? false
      : isNumber
        ? unitCounts || operator || assigned || hit.distinctive || keyword !== undefined
        : item.context.length === 0 || keyword !== undefined;
    const location = doc.locate(hit.start, hit.end);
    if (!full && isNumber) {
      const countKey = `${hit.item}\0${hit.value}\0${location.part ?? ""}`;
      const existing = counted.get(countKey);
      if (existing) {
        existing.count! += 1;
        continue;
      }
      const finding: Finding = {
        rule: item.rule,
        severity: "warning",
        task,
        item: item.id,
        file: doc.file,
        location,
        via: hit.view.via,
        message: reciprocalCount
          ? `a whole number equal to the reciprocal of gated number "${item.id}": a count like this is never an error by itself (list it in the item's equivalents to make it one)`
          : `a bare number equal to ${FORM_LABEL[hit.form!]} of gated number "${item.id}", with no context keyword nearby${item.context.length ? ` (it is an error next to: ${item.context.join(", ")})` : " (declare context keywords to tell)"}`,
        match: hit.matched,
        count: 1,
        fingerprint: fingerprint([item.rule, item.id, doc.file, hit.value, location.part ?? "", "bare"]),
      };
      counted.set(countKey, finding);
      findings.push(finding);
      continue;
    }
    const why: string[] = [];
    if (keyword) why.push(`near "${keyword}"`);
    if (hit.explicit) why.push("written with a unit or notation");
    if (operator) why.push("next to an arithmetic operator");
    if (assigned) why.push("assigned to a name in code");
    if (hit.spelled) why.push("spelled out");
    if (isNumber && hit.distinctive && why.length === 0) why.push("too many digits to be chance");
    let message: string;
    if (isNumber) message = `${FORM_LABEL[hit.form!]} of gated number "${item.id}" (${why.join(", ")})`;
    else if (item.rule === "artefact-prose") message = `${hit.value} in a row copied from the artefact`;
    else
      message = `${RULE_LABEL[item.rule] ?? item.rule}${item.rule.startsWith("gated") ? ` "${item.id}"` : ""}${keyword ? ` near "${keyword}"` : ""}`;
    if (!full) message += ` with no context keyword nearby (an error next to: ${item.context.join(", ")})`;
    findings.push({
      rule: item.rule,
      severity: full ? item.severity : "warning",
      task,
      item: item.rule.startsWith("gated") ? item.id : undefined,
      file: doc.file,
      location,
      via: hit.view.via,
      message: message + viaSuffix(hit.view.via),
      match: hit.matched,
      fingerprint: fingerprint([item.rule, item.id, doc.file, hit.value, structureOf() ?? nearbyWords(hit)]),
    });
  }
  for (const f of counted.values()) {
    if (f.count! > 1)
      f.message = `${f.count} ${f.message.replace(/^a bare number/, "bare numbers")} (first shown)`;
  }
  return findings;
}

/** Alias tables: k or more distinct entries of one table anywhere in one file (all its parts). */
export function tableFindings(
  task: string,
  file: string,
  rules: RuleSet,
  hits: Array<{ doc: AuditDocument; hit: Hit }>,
): Finding[] {
  const byItem = new Map<number, Array<{ doc: AuditDocument; hit: Hit }>>();
  for (const entry of hits) {
    if (rules.items[entry.hit.item]!.rule !== "alias-table") continue;
    const list = byItem.get(entry.hit.item) ?? [];
    list.push(entry);
    byItem.set(entry.hit.item, list);
  }
  const findings: Finding[] = [];
  for (const [index, entries] of byItem) {
    const item = rules.items[index]!;
    const distinct = [...new Set(entries.map((e) => e.hit.value))].sort();
    if (distinct.length < (item.minMatches ?? 2)) continue;
    entries.sort((a, b) => a.hit.start - b.hit.start);
    const first = entries[0]!;
    findings.push({
      rule: "alias-table",
      severity: item.severity,
      task,
      item: item.id,
      file,
      location: first.doc.locate(first.hit.start, first.hit.end),
      via: first.hit.view.via,
      message: `${distinct.length} of the ${item.tableSize} entries of alias table "${item.id}" appear in this file (${item.minMatches} or more give the table away; first shown)`,
      match: distinct.join(", "),
      count: entries.length,
      fingerprint: fingerprint(["alias-table", item.id, file, distinct.join("\0")]),
    });
  }
  return findings;
}
