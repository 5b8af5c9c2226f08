// Phase-0 result files (JSON lines {"id", "cost", "correct"}, optional "value"): what `kgate triage`
// writes as units finish and what `kgate triage score` reads back, with line-precise errors.
import { readFileSync } from "node:fs";
import { z } from "zod";
import type { ScoredUnit } from "./oracle.ts";

export const Phase0Line = z.object({
  id: z.string().min(1),
  /** Tokens the unit cost in phase 0 (output tokens, reasoning included where the provider counts it). */
  cost: z.number().int().nonnegative(),
  correct: z.boolean(),
  value: z.number().int().positive().default(1),
});
export type Phase0Line = z.infer<typeof Phase0Line>;

export class Phase0FileError extends Error {
  override name = "Phase0FileError";
}

/** Parses phase-0 lines; blank lines are skipped; a later line for the same id is an error. */
export function parsePhase0(text: string, file: string): ScoredUnit[] {
  const units: ScoredUnit[] = [];
  const seen = new Map<string, number>();
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = i + 1;
    if (raw.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (err) {
      throw new Phase0FileError(`${file}:${line}: not JSON: ${(err as Error).message}`);
    }
    const parsed = Phase0Line.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new Phase0FileError(`${file}:${line} (${issue.path.join(".") || "line"}): ${issue.message}`);
    }
    const earlier = seen.get(parsed.data.id);
    if (earlier !== undefined)
      throw new Phase0FileError(`${file}:${line} (id): "${parsed.data.id}" is already on line ${earlier}`);
    seen.set(parsed.data.id, line);
    units.push({
      id: parsed.data.id,
      cost: parsed.data.cost,
      correct: parsed.data.correct,
      value: parsed.data.value,
    });
  });
  if (units.length === 0) throw new Phase0FileError(`${file}: no phase-0 line`);
  return units;
}

export function loadPhase0(file: string): ScoredUnit[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new Phase0FileError(`${file}: cannot read: ${(err as Error).message}`);
  }
  return parsePhase0(text, file);
}
