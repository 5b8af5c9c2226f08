// Conditions of a trial (+A, -A, variant:<name>) and the slug rule their variant names follow.
import { z } from "zod";

/** Lower-case identifiers used for task ids and variant names. */
export const Slug = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, "must be lower-case letters, digits and dashes (max 63)");

export const Condition = z.union([z.literal("+A"), z.literal("-A"), z.templateLiteral(["variant:", Slug])]);
export type Condition = z.infer<typeof Condition>;
