// A reference run: every unit of a pool alone at a high budget, k times, through a bounded pool; per
// unit its accuracy (passes / k), mean generated tokens and provenance, appended as one JSON line as
// soon as its k trials end. Rerun on the same file, it keeps the units already written (same inputs).
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { appendJsonLine } from "../common/index.ts";
import { TrialPool } from "../trial/index.ts";
import {
  parseReferenceLines,
  type ReferenceLine,
  type ReferenceProvenance,
  ReferenceRunError,
} from "./reference.ts";

/** One trial of a unit alone: whether it passed and its generated tokens; throws on an infrastructure error. */
export type ReferenceTrial = (unitId: string, trial: number) => Promise<{ correct: boolean; tokens: number }>;

export interface ReferenceUnit {
  id: string;
  /** The unit's content digest (ReferenceProvenance.unitDigest). */
  digest: string;
}

export interface ReferenceRunOptions {
  units: readonly ReferenceUnit[];
  trials: number;
  /** Trials in flight at once. */
  concurrency: number;
  file: string;
  /** The provenance every line carries (its unitDigest is the unit's). */
  provenance: Omit<ReferenceProvenance, "unitDigest">;
  runTrial: ReferenceTrial;
  log?: (line: string) => void;
  /** Aborted: no further trial starts; units not finished are not written. */
  signal?: AbortSignal;
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
  const pool = new TrialPool<{ id: string; trial: number }, { correct: boolean; tokens: number }>(
    { concurrency: o.concurrency, signal: o.signal },
    () => "reference",
    (job) => o.runTrial(job.id, job.trial),
  );
  let ended = 0;
  await Promise.all(
    todo.map(async (unit) => {
      let trials: Array<{ correct: boolean; tokens: number }>;
      try {
        trials = await Promise.all(
          Array.from({ length: o.trials }, (_, k) => pool.submit({ id: unit.id, trial: k })),
        );
      } catch (err) {
        const message = (err instanceof Error ? err.message : String(err)).slice(0, 2000);
        result.failed.push({ id: unit.id, message });
        o.log?.(`[${++ended}/${todo.length}] ${unit.id}: error: ${message}`);
        return;
      }
      const passes = trials.filter((t) => t.correct).length;
      const line: ReferenceLine = {
        id: unit.id,
        accuracy: passes / o.trials,
        tokens: trials.reduce((s, t) => s + boundedTokens(t.tokens), 0) / o.trials,
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
