// The conventions a task's verifier declares, as a probe asks for them and scores them: the named
// keys of conventions.artefact, the question listing each with its kind, and the scoring of a reply.

import { fencedBlocks } from "../task/index.ts";
import type { LoadedVerifier } from "../verify/index.ts";

export interface DeclaredConvention {
  name: string;
  /** The artefact's value (what the verifier's reference answer uses). */
  value: unknown;
  /** The curator's declared default (what an agent without the artefact would assume). */
  defaultValue: unknown;
  /** For string conventions: every value any declared convention set uses, sorted. */
  choices: string[] | null;
}

export interface ConventionScore {
  name: string;
  expected: unknown;
  /** What the reply stated; undefined when it stated nothing for this name. */
  stated: unknown;
  correct: boolean;
  /** The artefact's value differs from the default: knowing it is evidence of the artefact. */
  gated: boolean;
}

/** Relative tolerance of numeric conventions (as the verifier's default 1e-4 comparison). */
const TOLERANCE = 1e-4;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The declared conventions; throws when the verifier's conventions are not named (a plain object). */
export function declaredConventions(loaded: LoadedVerifier): DeclaredConvention[] {
  const {
    artefact,
    default: defaults,
    variants,
  } = loaded.verifier.conventions as {
    artefact: unknown;
    default: unknown;
    variants: Record<string, unknown>;
  };
  if (!isRecord(artefact) || !isRecord(defaults)) {
    throw new Error(
      `${loaded.file}: conventions.artefact and conventions.default must be objects of named conventions`,
    );
  }
  const sets = [artefact, defaults, ...Object.values(variants).filter(isRecord)];
  return Object.entries(artefact).map(([name, value]) => {
    const strings = sets.map((s) => s[name]).filter((v): v is string => typeof v === "string");
    return {
      name,
      value,
      defaultValue: defaults[name],
      choices: typeof value === "string" ? [...new Set(strings)].sort() : null,
    };
  });
}

function kindOf(c: DeclaredConvention): string {
  if (c.choices) return `one of ${c.choices.map((s) => JSON.stringify(s)).join(", ")}`;
  if (typeof c.value === "string") return "a short string";
  if (typeof c.value === "number") return "a number (a percentage as a fraction of 1)";
  if (typeof c.value === "boolean") return "true or false";
  if (Array.isArray(c.value)) return "a JSON array";
  return "a JSON object";
}

/** The question: one JSON object with exactly the declared names, each described by its kind. */
export function conventionQuestion(conventions: readonly DeclaredConvention[], lead: string): string {
  return [
    lead,
    "Answer with one fenced block labelled json holding one object with exactly these keys:",
    ...conventions.map((c) => `- ${c.name}: ${kindOf(c)}`),
    "",
  ].join("\n");
}

/** Equal as conventions: numbers within the tolerance, strings trimmed and case-folded, structures leaf by leaf. */
export function sameConvention(stated: unknown, expected: unknown): boolean {
  if (typeof expected === "number") {
    return (
      typeof stated === "number" &&
      Number.isFinite(stated) &&
      Math.abs(stated - expected) <= TOLERANCE * Math.max(1, Math.abs(expected))
    );
  }
  if (typeof expected === "string") {
    return typeof stated === "string" && stated.trim().toLowerCase() === expected.trim().toLowerCase();
  }
  if (Array.isArray(expected)) {
    return (
      Array.isArray(stated) &&
      stated.length === expected.length &&
      expected.every((e, i) => sameConvention(stated[i], e))
    );
  }
  if (isRecord(expected)) {
    if (!isRecord(stated)) return false;
    const keys = Object.keys(expected);
    return (
      Object.keys(stated).length === keys.length &&
      keys.every((k) => k in stated && sameConvention(stated[k], expected[k]))
    );
  }
  return stated === expected;
}

/** The JSON object of a reply: the last fenced block labelled json that parses to an object, else null. */
export function statedConventions(reply: string): Record<string, unknown> | null {
  const blocks = fencedBlocks(reply).filter((b) => b.closed && b.label.toLowerCase() === "json");
  for (const block of blocks.reverse()) {
    try {
      const value: unknown = JSON.parse(block.body);
      if (isRecord(value)) return value;
    } catch {
      // not JSON: try an earlier block
    }
  }
  return null;
}

/** Each declared convention, right or wrong, against what the reply stated. */
export function scoreConventions(
  conventions: readonly DeclaredConvention[],
  reply: string,
): ConventionScore[] {
  const stated = statedConventions(reply) ?? {};
  return conventions.map((c) => {
    const expected = c.value;
    const given = Object.hasOwn(stated, c.name) ? stated[c.name] : undefined;
    return {
      name: c.name,
      expected,
      stated: given,
      correct: given !== undefined && sameConvention(given, expected),
      gated: !sameConvention(c.defaultValue, c.value),
    };
  });
}
