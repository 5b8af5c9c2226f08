// The task format as zod schemas: the single source of truth for task.json and conditions.
import { z } from "zod";

export const TASK_SCHEMA_VERSION = 1;

/** Lower-case identifiers used for task ids and variant names. */
export const Slug = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, "must be lower-case letters, digits and dashes (max 63)");

/** A path relative to the sandbox work directory, with no `..` segment. */
export const RelativePath = z
  .string()
  .min(1)
  .refine(
    (p) => !p.startsWith("/") && !p.includes("\\") && !p.split("/").some((s) => s === ".." || s === ""),
    "must be a relative path inside the work directory (no leading '/', no '..', no empty segment)",
  );

export const GateKind = z.enum(["convention", "operator"]);
export const VariantKind = z.enum(["perturbed", "compressed", "other"]);

export const CsvColumn = z
  .object({
    name: z.string().min(1),
    type: z.enum(["string", "number", "integer", "boolean"]),
  })
  .strict();

const outputBase = {
  path: RelativePath,
  description: z.string().optional(),
  /** Largest file the sandbox may hand back; larger outputs are rejected, not read. */
  maxBytes: z
    .number()
    .int()
    .positive()
    .default(1024 * 1024),
};

export const CsvOutput = z
  .object({
    ...outputBase,
    format: z.literal("csv"),
    columns: z.array(CsvColumn).min(1),
    /** Columns that identify a row: rows are compared by key, in any order. Without a key, order matters. */
    key: z.array(z.string().min(1)).optional(),
  })
  .strict();

export const JsonOutput = z
  .object({
    ...outputBase,
    format: z.literal("json"),
    /** JSON Schema (draft 2020-12 subset) of the document; converted to zod for validation. */
    schema: z.record(z.string(), z.unknown()),
  })
  .strict();

export const TextOutput = z
  .object({
    ...outputBase,
    format: z.literal("text"),
  })
  .strict();

export const OutputSpec = z.discriminatedUnion("format", [CsvOutput, JsonOutput, TextOutput]);

export const Limits = z
  .object({
    /** Wall-clock budget of the agent phase. */
    timeoutSec: z.number().int().positive().default(900),
    maxTurns: z.number().int().positive().default(50),
    /** Total token budget (input + output) across the trial. */
    maxTokens: z.number().int().positive().default(500_000),
    cpus: z.number().positive().max(64).default(1),
    memoryMb: z.number().int().min(64).default(1024),
    pids: z.number().int().min(16).default(256),
  })
  .strict();

export const VariantDecl = z
  .object({
    kind: VariantKind,
    description: z.string().optional(),
  })
  .strict();

export const ArtefactPlacement = z
  .object({
    /** Where the artefact (or a variant) is placed, relative to the work directory, under +A. */
    path: RelativePath,
    /** One line, shown to harnesses that list available references (only under +A). */
    description: z.string().min(1),
    /** Variants in artefacts/<id>/variants/<name>.md, each with a declared kind. */
    variants: z.record(Slug, VariantDecl).default({}),
  })
  .strict();

export const SolutionSpec = z
  .object({
    /** Shell command run (bash -c) in the work directory; $KGATE_SOLUTION_DIR holds solution/. */
    command: z.string().min(1).default('bash "$KGATE_SOLUTION_DIR/solve.sh"'),
  })
  .strict();

export const TaskSpec = z
  .object({
    $schema: z.string().optional(),
    schemaVersion: z.literal(TASK_SCHEMA_VERSION).default(TASK_SCHEMA_VERSION),
    id: Slug,
    title: z.string().min(1),
    gate: GateKind,
    domain: z.string().min(1),
    description: z.string().optional(),
    artefact: ArtefactPlacement,
    outputs: z.array(OutputSpec).min(1),
    limits: Limits.prefault({}),
    solution: SolutionSpec.prefault({}),
    /** Sandboxes have no network unless a task asks for it. */
    network: z.boolean().default(false),
  })
  .strict();

export type TaskSpec = z.infer<typeof TaskSpec>;
export type TaskSpecInput = z.input<typeof TaskSpec>;
export type OutputSpec = z.infer<typeof OutputSpec>;
export type Limits = z.infer<typeof Limits>;
export type GateKind = z.infer<typeof GateKind>;
export type VariantKind = z.infer<typeof VariantKind>;

/** A condition: the artefact present, absent, or replaced by a named variant. */
export const Condition = z.union([z.literal("+A"), z.literal("-A"), z.templateLiteral(["variant:", Slug])]);
export type Condition = z.infer<typeof Condition>;

export function parseCondition(text: string): Condition {
  const parsed = Condition.safeParse(text);
  if (!parsed.success) throw new Error(`invalid condition "${text}": expected +A, -A or variant:<name>`);
  return parsed.data;
}

export function variantOf(condition: Condition): string | undefined {
  return condition.startsWith("variant:") ? condition.slice("variant:".length) : undefined;
}
