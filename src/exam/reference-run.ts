// A reference run: every unit of a pool alone at a high budget, k times, each trial a unit of the one
// engine (bounded there, retried by failure kind); per unit its accuracy (passes / k), mean generated
// tokens and provenance, appended as one JSON line as soon as its k trials end. Rerun on the same
// file, it keeps the units already written (same inputs).
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { appendJsonLine } from "../common/index.ts";
import { FAILURE_KINDS, type TrialError } from "../record/index.ts";
import {
  parseReferenceLines,
  type ReferenceLine,
  type ReferenceProvenance,
  ReferenceRunError,
} from "./reference.ts";

/** How one trial of a unit alone ended: passed or not, its generated tokens, its error of the taxonomy. */
export interface ReferenceOutcome {
  correct: boolean;
  tokens: number;
  error: TrialError | null;
}

/** One trial of a unit alone through the engine; null when the run was cancelled before it started. */
export type ReferenceTrial = (unitId: string, trial: number) => Promise<ReferenceOutcome | null>;

export interface ReferenceUnit {
  id: string;
  /** The unit's content digest (ReferenceProvenance.unitDigest). */
  digest: string;
}

export interface ReferenceRunOptions {
  units: readonly ReferenceUnit[];
  trials: number;
  file: string;
  /** The provenance every line carries (its unitDigest is the unit's). */
  provenance: Omit<ReferenceProvenance, "unitDigest">;
  runTrial: ReferenceTrial;
  log?: (line: string) => void;
}

export interface ReferenceRunResult {
  written: number;
  /** Units already in the file from an earlier run with the same inputs. */
  kept: number;
  failed: Array<{ id: string; message: string }>;
}

/** Fields that must agree between a line already in the file and this run (kgateVersion and runId may differ). */
const SAME = ["kind", "agent", "condition", "budget", "trials"] as const;

/** The units already measured, after checking they were measured the way this run would measure them. */
export function existingLines(
  o: Pick<ReferenceRunOptions, "file" | "units" | "provenance">,
): Map<string, ReferenceLine> {
  if (!existsSync(o.file)) return new Map();
  const lines = parseReferenceLines(readFileSync(o.file, "utf8"), o.file);
  const digests = new Map(o.units.map((u) => [u.id, u.digest]));
  for (const [i, line] of lines.entries()) {
    const where = `${o.file}: line ${i + 1} ("${line.id}")`;
    if (!line.provenance)
      throw new ReferenceRunError(`${where} has no provenance: a reference run adds only to a file it wrote`);
    for (const field of SAME) {
      const was = JSON.stringify(line.provenance[field]);
      const now = JSON.stringify(o.provenance[field]);
      if (was !== now)
        throw new ReferenceRunError(`${where} was measured with another ${field} (${was}, now ${now})`);
    }
    const digest = digests.get(line.id);
    if (digest !== undefined && digest !== line.provenance.unitDigest)
      throw new ReferenceRunError(`${where} was measured on other content (unitDigest changed)`);
  }
  return new Map(lines.map((l) => [l.id, l]));
}

/** A trial's token count as a line can hold it: reported counts are the provider's, so bounded here. */
function boundedTokens(tokens: number): number {
  return Number.isFinite(tokens) && tokens > 0 ? Math.min(tokens, Number.MAX_SAFE_INTEGER) : 0;
}

export async function runReference(o: ReferenceRunOptions): Promise<ReferenceRunResult> {
  const existing = existingLines(o);
  mkdirSync(path.dirname(o.file), { recursive: true });
  const todo = o.units.filter((u) => !existing.has(u.id));
  const result: ReferenceRunResult = { written: 0, kept: o.units.length - todo.length, failed: [] };
  if (result.kept > 0) o.log?.(`keeping ${result.kept} unit(s) already in ${o.file}`);
  let ended = 0;
  await Promise.all(
    todo.map(async (unit) => {
      const trials = await Promise.all(Array.from({ length: o.trials }, (_, k) => o.runTrial(unit.id, k)));
      // a unit is written only when every one of its k trials counts (an infra error: rerun it)
      const failed = trials.find((t) => t === null || (t.error && !FAILURE_KINDS[t.error.kind].counted));
      if (failed !== undefined) {
        const message = failed
          ? `${failed.error!.kind}: ${failed.error!.message}`.slice(0, 2000)
          : "cancelled before its trials ran";
        result.failed.push({ id: unit.id, message });
        o.log?.(`[${++ended}/${todo.length}] ${unit.id}: error: ${message}`);
        return;
      }
      const done = trials as ReferenceOutcome[];
      const passes = done.filter((t) => t.correct).length;
      const line: ReferenceLine = {
        id: unit.id,
        accuracy: passes / o.trials,
        tokens: done.reduce((s, t) => s + boundedTokens(t.tokens), 0) / o.trials,
        provenance: { ...o.provenance, unitDigest: unit.digest },
      };
      appendJsonLine(o.file, line);
      result.written += 1;
      o.log?.(
        `[${++ended}/${todo.length}] ${unit.id}: accuracy ${passes}/${o.trials}, ${line.tokens.toFixed(0)} tokens`,
      );
    }),
  );
  result.failed.sort((a, b) => a.id.localeCompare(b.id));
  return result;
}
