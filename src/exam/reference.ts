// The reference run a value-density ranking needs: per unit, its accuracy and mean tokens when it was
// run alone at a high budget, one JSON object a line ({"id", "accuracy", "tokens"}); line-precise errors.
import { readFileSync } from "node:fs";
import { z } from "zod";
import { fieldPath, sha256 } from "../task/index.ts";
import type { ReferenceEntry } from "./analysis.ts";

export const ReferenceLine = z
  .object({
    id: z.string().min(1),
    /** Pass rate of the unit alone, in [0, 1]; its difficulty is 1 - accuracy when none is declared. */
    accuracy: z.number().min(0).max(1),
    /** Mean generated tokens of the unit alone. */
    tokens: z.number().nonnegative(),
  })
  .strict();

export class ReferenceRunError extends Error {
  override name = "ReferenceRunError";
}

export interface LoadedReference {
  file: string;
  digest: string;
  entries: Map<string, ReferenceEntry>;
}

export function parseReference(text: string, file: string): Map<string, ReferenceEntry> {
  const entries = new Map<string, ReferenceEntry>();
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
    if (entries.has(parsed.data.id))
      throw new ReferenceRunError(`${file}:${i + 1} (id): "${parsed.data.id}" appears twice`);
    entries.set(parsed.data.id, { accuracy: parsed.data.accuracy, tokens: parsed.data.tokens });
  });
  return entries;
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
