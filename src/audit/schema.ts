// The leak-audit file audits/<id>.json as zod schemas: gated items, ignored numbers, allowlist.
import { z } from "zod";

export const AUDIT_SCHEMA_VERSION = 1;

const ItemId = z
  .string()
  .regex(/^[a-z0-9][a-z0-9._-]{0,62}$/, "must be lower-case letters, digits, '.', '_' or '-' (max 63)");

const base = {
  id: ItemId,
  description: z.string().optional(),
  /** Words that mark a match as the gated use (e.g. "overhead"); without one nearby a bare match is only a warning. */
  context: z.array(z.string().trim().min(1)).default([]),
  /** The highest severity a match of this item gets. */
  severity: z.enum(["error", "warning"]).default("error"),
};

/** A gated numeric constant: a rate, a denominator, a threshold, a sentinel. */
export const NumberItem = z
  .object({
    ...base,
    kind: z.literal("number"),
    value: z.number().finite(),
    /**
     * `rate` adds the percent, multiplier (1 + v), complement (1 - v) and basis-point forms;
     * `quantity` adds the reciprocal. Default: rate when 0 < |value| < 1, else quantity.
     */
    as: z.enum(["rate", "quantity"]).optional(),
    /** Further values that give the constant away (e.g. 1.2544 = 1.12 applied twice). */
    equivalents: z.array(z.number().finite()).default([]),
  })
  .strict();

/** Private names: enum names, rule names, aliases of one secret; any occurrence is a match. */
export const StringItem = z
  .object({
    ...base,
    kind: z.literal("string"),
    values: z.array(z.string().trim().min(2)).min(1),
  })
  .strict();

/** An alias table: k or more of its entries in one file is a leak (one alone is not). */
export const TableItem = z
  .object({
    ...base,
    kind: z.literal("table"),
    values: z.array(z.string().trim().min(1)).min(2),
    minMatches: z.number().int().min(2).default(2),
  })
  .strict();

/** A phrase of the artefact that must not appear (matched across line breaks and case). */
export const PhraseItem = z
  .object({
    ...base,
    kind: z.literal("phrase"),
    text: z.string().trim().min(4),
  })
  .strict();

export const AuditItem = z.discriminatedUnion("kind", [NumberItem, StringItem, TableItem, PhraseItem]);

/** A number of the artefact that is not gated (so coverage does not warn about it), with a reason. */
export const IgnoredNumber = z
  .object({
    value: z.number().finite(),
    reason: z.string().trim().min(1),
  })
  .strict();

/** A suppression: matches findings by content fingerprint (rule, path, value, context; no line numbers). */
export const AllowlistEntry = z
  .object({
    fingerprint: z.string().regex(/^[0-9a-f]{32}$/, "must be the 32 hex digits printed with the finding"),
    /** Required: an entry without a reason is an error finding and suppresses nothing. */
    reason: z.string().trim().optional(),
    /** YYYY-MM-DD; from that day on the entry suppresses nothing and is reported. */
    expires: z.iso.date().optional(),
    /** Free text for humans (e.g. the rule and file); ignored by matching. */
    note: z.string().optional(),
  })
  .strict();

export const AuditFile = z
  .object({
    $schema: z.string().optional(),
    schemaVersion: z.literal(AUDIT_SCHEMA_VERSION).default(AUDIT_SCHEMA_VERSION),
    items: z.array(AuditItem).default([]),
    ignoreNumbers: z.array(IgnoredNumber).default([]),
    /** Words per prose shingle: a run this long copied from the artefact is a leak. */
    shingleWords: z.number().int().min(6).max(16).default(8),
    allowlist: z.array(AllowlistEntry).default([]),
  })
  .strict()
  .superRefine((file, ctx) => {
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
    });
  });

export type AuditFile = z.infer<typeof AuditFile>;
export type AuditFileInput = z.input<typeof AuditFile>;
export type AuditItem = z.infer<typeof AuditItem>;
export type NumberItem = z.infer<typeof NumberItem>;
export type AllowlistEntry = z.infer<typeof AllowlistEntry>;
