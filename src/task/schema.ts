// The task format as zod schemas: the single source of truth for task.json and conditions.
import { z } from "zod";
import { Condition, Slug } from "../record/index.ts";
import { isWorkPath, WORK_PATH_RULE } from "./work-path.ts";

export { Condition, Slug };

export const TASK_SCHEMA_VERSION = 1;

/** A path relative to the sandbox work directory, with no `..` segment. */
export const RelativePath = z.string().min(1).refine(isWorkPath, WORK_PATH_RULE);

export const GateKind = z.enum(["convention", "operator"]);
export const VariantKind = z.enum(["perturbed", "compressed", "other"]);

/**
 * String normalisation steps applied to both sides before strings are compared; whatever order they
 * are declared in, they run in the order nfkc, collapse-whitespace, trim, lowercase.
 */
export const StringNormalisation = z.enum(["nfkc", "collapse-whitespace", "trim", "lowercase"]);

/**
 * Numbers match when |actual - expected| <= max(abs, rel * |expected|) (plus a slack of a few units of
 * double rounding, so decimal text exactly on the bound passes): the absolute bound applies while
 * |expected| <= abs / rel (1e8 with the defaults), the relative bound above.
 */
export const Tolerance = z
  .object({
    abs: z.number().nonnegative().default(1e-4),
    rel: z.number().nonnegative().default(1e-12),
  })
  .strict();

export const CsvColumn = z
  .object({
    name: z.string().min(1),
    type: z.enum(["string", "number", "integer", "boolean"]),
    /** Overrides the output's compare.tolerance for this column. */
    tolerance: Tolerance.optional(),
    /** Overrides the output's compare.normalise for this column (key columns included). */
    normalise: z.array(StringNormalisation).optional(),
  })
  .strict();

const compareBase = {
  tolerance: Tolerance.prefault({}),
  normalise: z.array(StringNormalisation).default([]),
};

/** A JSON Pointer (RFC 6901) to an array, where a `*` segment matches any one segment. */
export const ArrayPointer = z
  .string()
  .regex(/^(\/[^/]+)*$/, 'must be a JSON Pointer such as "/papers" or "/groups/*/items" ("" is the root)');

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
    key: z.array(z.string().min(1)).min(1).optional(),
    compare: z.object(compareBase).strict().prefault({}),
  })
  .strict()
  .superRefine((output, ctx) => {
    const names = output.columns.map((c) => c.name);
    names.forEach((name, i) => {
      if (names.indexOf(name) !== i) {
        ctx.addIssue({ code: "custom", path: ["columns", i, "name"], message: `duplicate column "${name}"` });
      }
    });
    output.key?.forEach((name, i) => {
      if (!names.includes(name)) {
        ctx.addIssue({ code: "custom", path: ["key", i], message: `"${name}" is not a declared column` });
      }
    });
  });

export const JsonOutput = z
  .object({
    ...outputBase,
    format: z.literal("json"),
    /** JSON Schema (draft 2020-12 subset) of the document; converted to zod with z.fromJSONSchema. */
    schema: z.record(z.string(), z.unknown()),
    compare: z
      .object({
        ...compareBase,
        /** Arrays compared by key fields of their elements (in any order); other arrays are ordered. */
        keyedArrays: z.record(ArrayPointer, z.array(z.string().min(1)).min(1)).default({}),
      })
      .strict()
      .prefault({}),
  })
  .strict()
  .superRefine((output, ctx) => {
    try {
      z.fromJSONSchema(output.schema as Parameters<typeof z.fromJSONSchema>[0]);
    } catch (err) {
      ctx.addIssue({
        code: "custom",
        path: ["schema"],
        message: `unsupported JSON Schema: ${(err as Error).message}`,
      });
    }
  });

export const TextOutput = z
  .object({
    ...outputBase,
    format: z.literal("text"),
    /** Used when the text is compared with an expected string (no rubric in the verifier). */
    compare: z.object({ normalise: compareBase.normalise }).strict().prefault({}),
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
    /**
     * Size cap of each writable folder of the sandbox (/home/agent with the work directory), in MiB;
     * unset: half of memoryMb (at least 16). A tmpfs: its pages count against memoryMb too.
     */
    diskMb: z.number().int().min(16).max(1_048_576).optional(),
    /** Largest environment file, in MiB (64 unless set; a bigger file is an error naming it). */
    environmentFileMb: z.number().int().positive().optional(),
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
export type CsvOutput = z.infer<typeof CsvOutput>;
export type JsonOutput = z.infer<typeof JsonOutput>;
export type TextOutput = z.infer<typeof TextOutput>;
export type CsvColumn = z.infer<typeof CsvColumn>;
export type Tolerance = z.infer<typeof Tolerance>;
export type StringNormalisation = z.infer<typeof StringNormalisation>;
export type Limits = z.infer<typeof Limits>;

/** The task's diskMb, or half its memory limit (at least 16 MiB), the same rule as /tmp's size. */
export function diskMbOf(limits: Pick<Limits, "memoryMb" | "diskMb">): number {
  return limits.diskMb ?? Math.max(16, Math.floor(limits.memoryMb / 2));
}
export type GateKind = z.infer<typeof GateKind>;
export type VariantKind = z.infer<typeof VariantKind>;

/** A condition: the artefact present, absent, or replaced by a named variant. */
export function parseCondition(text: string): Condition {
  const parsed = Condition.safeParse(text);
  if (!parsed.success) throw new Error(`invalid condition "${text}": expected +A, -A or variant:<name>`);
  return parsed.data;
}

export function variantOf(condition: Condition): string | undefined {
  return condition.startsWith("variant:") ? condition.slice("variant:".length) : undefined;
}
