// The leak-audit file audits/<id>.json as zod schemas: gated items, ignored numbers, allowlist.
// Written with zod/mini, whose core loads in a fraction of classic zod's time: `kgate audit` (and
// so the pre-commit hook) loads no classic zod schema at all.
import * as z from "zod/mini";
import en from "zod/v4/locales/en.js";
import { isWorkPath, WORK_PATH_RULE } from "../task/light.ts";

// zod/mini has no messages of its own until a locale is set (classic zod sets English itself).
z.config(en());

export const AUDIT_SCHEMA_VERSION = 1;

const ItemId = z
  .string()
  .check(
    z.regex(/^[a-z0-9][a-z0-9._-]{0,62}$/, "must be lower-case letters, digits, '.', '_' or '-' (max 63)"),
  );

/** A string trimmed of surrounding white space, then at least `min` characters long. */
const trimmed = (min: number) => z.string().check(z.trim(), z.minLength(min));

const base = {
  id: ItemId,
  description: z.optional(z.string()),
  /**
   * Words that mark a match as the gated use (e.g. "overhead"); without one nearby a bare match is
   * only a warning. Either the words, or the name of a list in the file's `contextSets`.
   */
  context: z._default(z.union([z.array(trimmed(1)), ItemId]), []),
  /** The highest severity a match of this item gets. */
  severity: z._default(z.enum(["error", "warning"]), "error"),
};

/** A gated numeric constant: a rate, a denominator, a threshold, a sentinel. */
export const NumberItem = z.strictObject({
  ...base,
  kind: z.literal("number"),
  value: z.number(),
  /**
   * `rate` adds the percent, multiplier (1 + v), complement (1 - v) and basis-point forms;
   * `quantity` adds the reciprocal. Default: rate when 0 < |value| < 1, else quantity.
   */
  as: z.optional(z.enum(["rate", "quantity"])),
  /** Further values that give the constant away (e.g. 1.2544 = 1.12 applied twice). */
  equivalents: z._default(z.array(z.number()), []),
  /**
   * Opt-in: a form written with a unit or notation ("7.5%", "1.075x") is an error only next to a
   * context keyword or an operator, like a bare number (default false: a unit-written form is an
   * error whatever its context). Trades missed leaks for fewer false alarms; see docs/audit.md.
   */
  unitsNeedContext: z._default(z.boolean(), false),
});

/** Private names: enum names, rule names, aliases of one secret; any occurrence is a match. */
export const StringItem = z.strictObject({
  ...base,
  kind: z.literal("string"),
  values: z.array(trimmed(2)).check(z.minLength(1)),
});

/** An alias table: k or more of its entries in one file is a leak (one alone is not). */
export const TableItem = z.strictObject({
  ...base,
  kind: z.literal("table"),
  values: z.array(trimmed(1)).check(z.minLength(2)),
  minMatches: z._default(z.int().check(z.gte(2)), 2),
});

/** A phrase of the artefact that must not appear (matched across line breaks and case). */
export const PhraseItem = z.strictObject({
  ...base,
  kind: z.literal("phrase"),
  text: trimmed(4),
});

export const AuditItem = z.discriminatedUnion("kind", [NumberItem, StringItem, TableItem, PhraseItem]);

/** A number of the artefact that is not gated (so coverage does not warn about it), with a reason. */
export const IgnoredNumber = z.strictObject({
  value: z.number(),
  reason: trimmed(1),
});

/** A suppression: matches findings by content fingerprint (rule, path, value, context; no line numbers). */
export const AllowlistEntry = z.strictObject({
  fingerprint: z
    .string()
    .check(z.regex(/^[0-9a-f]{32}$/, "must be the 32 hex digits printed with the finding")),
  /** Required: an entry without a reason is an error finding and suppresses nothing. */
  reason: z.optional(z.string().check(z.trim())),
  /** YYYY-MM-DD; from that day on the entry suppresses nothing and is reported. */
  expires: z.optional(z.iso.date()),
  /** Free text for humans (e.g. the rule and file); ignored by matching. */
  note: z.optional(z.string()),
});

export const AuditFile = z
  .strictObject({
    $schema: z.optional(z.string()),
    schemaVersion: z._default(z.literal(AUDIT_SCHEMA_VERSION), AUDIT_SCHEMA_VERSION),
    /** Named context keyword lists, shared by items whose `context` is the list's name. */
    contextSets: z._default(z.record(ItemId, z.array(trimmed(1)).check(z.minLength(1))), {}),
    items: z._default(z.array(AuditItem), []),
    ignoreNumbers: z._default(z.array(IgnoredNumber), []),
    /** Words per prose shingle: a run this long copied from the artefact is a leak. */
    shingleWords: z._default(z.int().check(z.gte(6), z.lte(16)), 8),
    allowlist: z._default(z.array(AllowlistEntry), []),
  })
  .check(
    z.superRefine((file, ctx) => {
      const seen = new Set<string>();
      file.items.forEach((item, index) => {
        if (seen.has(item.id)) {
          ctx.addIssue({
            code: "custom",
            path: ["items", index, "id"],
            message: `duplicate item id "${item.id}"`,
          });
        }
        seen.add(item.id);
        if (typeof item.context === "string" && !(item.context in file.contextSets)) {
          const known = Object.keys(file.contextSets).join(", ") || "none";
          ctx.addIssue({
            code: "custom",
            path: ["items", index, "context"],
            message: `no context set "${item.context}" in contextSets (declared: ${known})`,
          });
        }
      });
    }),
  );

/**
 * What the audit reads of task.json: where the artefact is placed under +A. The rest of the file is
 * the task loader's (and `kgate check`'s) to validate.
 */
export const AuditedTaskSpec = z.object({
  artefact: z.object({ path: z.string().check(z.minLength(1), z.refine(isWorkPath, WORK_PATH_RULE)) }),
});

export type AuditFile = z.infer<typeof AuditFile>;
export type AuditItem = z.infer<typeof AuditItem>;
export type NumberItem = z.infer<typeof NumberItem>;
export type AllowlistEntry = z.infer<typeof AllowlistEntry>;
