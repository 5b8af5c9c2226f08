// Compiles what is gated into matchers: declared items from the audit file plus items derived from the
// artefact (file name, title, canary GUID, prose shingles), all literals in one Aho-Corasick automaton.
import path from "node:path";
import { AhoCorasick } from "./aho-corasick.ts";
import { artefactCode, type CodeSource } from "./artefact-code.ts";
import { FormIndex, type GatedNumber } from "./forms.ts";
import { normalise, normalisePattern } from "./normalise.ts";
import { NUMBER_WORDS } from "./number-words.ts";
import type { AuditFile, AuditItem } from "./schema.ts";
import { ShingleSet } from "./shingles.ts";
import { WordTable } from "./words.ts";

/** Flags of the words the scan's word pass reports (RuleSet.words). */
export const WORD_NUMBER = 1;
export const WORD_LITERAL = 2;

export type RuleId =
  | "gated-number"
  | "gated-string"
  | "gated-phrase"
  | "alias-table"
  | "artefact-canary"
  | "artefact-name"
  | "artefact-title"
  | "artefact-prose"
  | "artefact-code"
  | "artefact-id"
  | "coverage"
  | "allowlist-unused"
  | "allowlist-no-reason"
  | "allowlist-expired"
  | "unreadable-file";

export interface CompiledItem {
  id: string;
  rule: RuleId;
  severity: "error" | "warning";
  /** Normalised context keywords; empty means every match counts at full severity. */
  context: string[];
  /**
   * Gated numbers: the item id's words ("separation-margin": separation, margin); a column or key
   * path that shares one is context.
   */
  nameTokens?: string[];
  /** Gated numbers only: a unit-written form needs a context keyword or operator too. */
  unitsNeedContext?: boolean;
  /** For alias tables: how many distinct entries in one file make a leak. */
  minMatches?: number;
  tableSize?: number;
}

/** An item's context keywords, its named set (audit file `contextSets`) resolved. */
function contextWords(file: AuditFile, item: AuditItem): string[] {
  return typeof item.context === "string" ? (file.contextSets[item.context] ?? []) : item.context;
}

export interface LiteralOwner {
  item: number;
  /** The normalised pattern (also the fingerprint's value). */
  value: string;
}

export interface RuleSet {
  items: CompiledItem[];
  literals: AhoCorasick;
  owners: LiteralOwner[];
  forms: FormIndex;
  shingles?: ShingleSet;
  /** Spelled-out number words (WORD_NUMBER) and the anchor words of literals (WORD_LITERAL). */
  words: WordTable;
  /** Index of the derived item that prose shingle hits belong to. */
  proseItem: number;
  /** String items that are lists, matched in any list syntax (JSON, YAML, quoted). */
  lists: ListPattern[];
  /** The artefact's code blocks and formula lines, as winnowed fingerprints (code-pass.ts). */
  code: CodeSource;
}

export interface ArtefactInfo {
  /** The artefact's project-relative path (findings about its code name it). */
  file: string;
  /** Where the artefact is placed under +A (task.json artefact.path). */
  placedAt: string;
  text: string;
  canary?: string;
}

const CANARY_COMMENT = /<!--\s*kgate-canary:[^>]*-->/gi;

/** The artefact's first Markdown heading, if it is specific enough to be a leak on its own. */
export function artefactTitle(text: string): string | undefined {
  const heading = /^#{1,6}[ \t]+(.+?)[ \t#]*$/m.exec(text.replace(CANARY_COMMENT, ""))?.[1];
  if (!heading) return undefined;
  const title = normalisePattern(heading);
  return title.split(" ").length >= 2 && title.length >= 12 ? title : undefined;
}

/** Codes like "HYD-BF-3" or "DPE-3" in the artefact's first lines: its private identifiers. */
const IDENTIFIER = /(?<![\w-])[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)*-\d+[A-Z0-9]*(?![\w-])/g;
const FIRST_LINES = 10;

/** The artefact's identifiers: codes with letters, a dash and digits in its first lines (title included). */
export function artefactIdentifiers(text: string): string[] {
  const head = text
    .replace(/<!--[\s\S]*?-->/g, "")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .slice(0, FIRST_LINES)
    .join("\n");
  const found = [...head.matchAll(IDENTIFIER)].map((m) => m[0]);
  return [...new Set(found.filter((c) => (c.match(/[A-Z]/g) ?? []).length >= 2))];
}

/** Words of an item id that name it ("separation-margin": separation, margin); short ones left out. */
const GENERIC = new Set(["the", "and", "for", "per", "value", "values", "number", "item", "default"]);
function nameTokens(id: string): string[] {
  return id.split(/[-_.]+/).filter((t) => t.length >= 3 && !GENERIC.has(t));
}

export interface ListPattern {
  item: number;
  /** The list's elements in order, separated by any list syntax. */
  pattern: RegExp;
  value: string;
}

const ELEMENT_SEPARATOR = /\s*[,;]\s*/;
const ESCAPE = /[.*+?^${}()|[\]\\]/g;

/**
 * A string item whose value is a list ("forward, backward, forward") also matches its elements in
 * order in any list syntax: a JSON or YAML array, a quoted list, one element per YAML line.
 */
function listPattern(item: number, value: string): ListPattern[] {
  const elements = value.split(ELEMENT_SEPARATOR).filter((e) => e.trim() !== "");
  if (elements.length < 2) return [];
  const element = (e: string) => e.trim().replace(ESCAPE, "\\$&").replace(/\s+/g, "\\s+");
  const separator = "[\\s\"'`]*(?:[,;]|\\n[ \\t]*-)[\\s\"'`]*";
  const source = `(?<![\\p{L}\\p{N}])${elements.map(element).join(separator)}(?![\\p{L}\\p{N}])`;
  return [{ item, pattern: new RegExp(source, "giu"), value: normalisePattern(value) }];
}

/** The artefact's text without its canary comment, for shingles and coverage. */
export function artefactProse(text: string): string {
  return text.replace(CANARY_COMMENT, (m) => " ".repeat(m.length));
}

export function compileRules(audit: AuditFile, artefact: ArtefactInfo): RuleSet {
  const items: CompiledItem[] = [];
  const patterns: string[] = [];
  const owners: LiteralOwner[] = [];
  const numbers: GatedNumber[] = [];
  const lists: ListPattern[] = [];
  const addLiteral = (item: number, text: string) => {
    const value = normalisePattern(text);
    if (value.length === 0) return;
    patterns.push(value);
    owners.push({ item, value });
  };

  for (const item of audit.items) {
    const index = items.length;
    const context = contextWords(audit, item).map(normalisePattern);
    switch (item.kind) {
      case "number":
        items.push({
          id: item.id,
          rule: "gated-number",
          severity: item.severity,
          context,
          unitsNeedContext: item.unitsNeedContext,
          nameTokens: nameTokens(item.id),
        });
        numbers.push({
          item: index,
          value: item.value,
          as: item.as ?? (Math.abs(item.value) > 0 && Math.abs(item.value) < 1 ? "rate" : "quantity"),
          equivalents: item.equivalents,
        });
        break;
      case "string":
        items.push({ id: item.id, rule: "gated-string", severity: item.severity, context });
        for (const v of item.values) addLiteral(index, v);
        lists.push(...item.values.flatMap((v) => listPattern(index, v)));
        break;
      case "phrase":
        items.push({ id: item.id, rule: "gated-phrase", severity: item.severity, context });
        addLiteral(index, item.text);
        lists.push(...listPattern(index, item.text));
        break;
      case "table":
        items.push({
          id: item.id,
          rule: "alias-table",
          severity: item.severity,
          context,
          minMatches: item.minMatches,
          tableSize: item.values.length,
        });
        for (const v of item.values) addLiteral(index, v);
        break;
    }
  }

  const derived = (id: string, rule: RuleId, values: string[]) => {
    const index = items.length;
    items.push({ id, rule, severity: "error", context: [] });
    for (const v of new Set(values)) addLiteral(index, v);
  };
  derived("artefact-name", "artefact-name", [
    artefact.placedAt,
    path.posix.basename(artefact.placedAt),
    "artefact.md",
  ]);
  const title = artefactTitle(artefact.text);
  if (title) derived("artefact-title", "artefact-title", [title]);
  if (artefact.canary) derived("artefact-canary", "artefact-canary", [artefact.canary]);
  const identifiers = artefactIdentifiers(artefact.text);
  if (identifiers.length > 0) derived("artefact-id", "artefact-id", identifiers);

  const prose = normalise(artefactProse(artefact.text)).text;
  const shingles = new ShingleSet(prose, audit.shingleWords);
  const proseItem = items.length;
  items.push({ id: "artefact-prose", rule: "artefact-prose", severity: "error", context: [] });

  const literals = new AhoCorasick(patterns);
  const words = new WordTable();
  for (const word of literals.anchorWords) words.add(word, WORD_LITERAL);
  if (numbers.length > 0) for (const word of NUMBER_WORDS) words.add(word, WORD_NUMBER);

  return {
    items,
    literals,
    words,
    owners,
    forms: new FormIndex(numbers),
    shingles: shingles.size > 0 ? shingles : undefined,
    proseItem,
    lists,
    code: { artefactFile: artefact.file, blocks: artefactCode(artefact.text) },
  };
}
