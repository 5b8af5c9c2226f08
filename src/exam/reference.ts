// The reference run a value-density ranking needs: per unit, its accuracy and mean tokens when it was
// run alone at a high budget, one JSON object a line ({"id", "accuracy", "tokens"}, and the provenance
// when kgate wrote it); line-precise errors.
import { readFileSync } from "node:fs";
import { z } from "zod";
import { fieldPath } from "../common/index.ts";
import { Condition, sha256 } from "../task/index.ts";
import type { ReferenceEntry } from "./analysis.ts";

/** What measured a line written by `--make-reference` (a hand-written line has none). */
export const ReferenceProvenance = z
  .object({
    kind: z.enum(["items", "tasks", "inline-tasks"]),
    agent: z.object({ name: z.string(), digest: z.string() }).strict(),
    kgateVersion: z.string(),
    /** The tasks' condition; null for items. */
    condition: Condition.nullable(),
    budget: z.number().int().positive(),
    trials: z.number().int().positive(),
    /** The unit's content: an item's sha256, a task's task digest. */
    unitDigest: z.string(),
    /** Task units: the run whose trials.jsonl holds the trials; null for items and inline tasks. */
    runId: z.string().nullable(),
  })
  .strict();
export type ReferenceProvenance = z.infer<typeof ReferenceProvenance>;

export const ReferenceLine = z
  .object({
    id: z.string().min(1),
    /** Pass rate of the unit alone, in [0, 1]; its difficulty is 1 - accuracy when none is declared. */
    accuracy: z.number().min(0).max(1),
    /** Mean generated tokens of the unit alone. */
    tokens: z.number().nonnegative(),
    provenance: ReferenceProvenance.optional(),
  })
  .strict();
export type ReferenceLine = z.infer<typeof ReferenceLine>;

export class ReferenceRunError extends Error {
  override name = "ReferenceRunError";
}

export interface LoadedReference {
  file: string;
  digest: string;
  entries: Map<string, ReferenceEntry>;
}

/** The file's lines, in order; a unit twice, a line that is not JSON or not a line, throws naming the line. */
export function parseReferenceLines(text: string, file: string): ReferenceLine[] {
  const lines: ReferenceLine[] = [];
  const seen = new Set<string>();
  text.split(/\r?\n/).forEach((raw, i) => {
    const trimmed = raw.trim();
    if (trimmed === "" || trimmed.startsWith("//")) return;
    let json: unknown;
    try {
      json = JSON.parse(trimmed);
    } catch (err) {
      throw new ReferenceRunError(`${file}:${i + 1}: not JSON: ${(err as Error).message}`);
    }
    const parsed = ReferenceLine.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new ReferenceRunError(`${file}:${i + 1} (${fieldPath(issue.path)}): ${issue.message}`);
    }
    if (seen.has(parsed.data.id))
      throw new ReferenceRunError(`${file}:${i + 1} (id): "${parsed.data.id}" appears twice`);
    seen.add(parsed.data.id);
    lines.push(parsed.data);
  });
  return lines;
}

export function parseReference(text: string, file: string): Map<string, ReferenceEntry> {
  return new Map(
    parseReferenceLines(text, file).map((l) => [l.id, { accuracy: l.accuracy, tokens: l.tokens }]),
  );
}

export function loadReference(file: string): LoadedReference {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new ReferenceRunError(`${file}: cannot read the reference run: ${(err as Error).message}`);
  }
  return { file, digest: sha256(text), entries: parseReference(text, file) };
}
