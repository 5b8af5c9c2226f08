// runs/<run>/probes.jsonl: what a probe learnt from one inline trial beyond its verdict (the
// conventions stated, right or wrong; a canary hit), one line per trial, appended as it finishes
// (one write(2), a torn last line closed off first).
import { mkdirSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { appendJsonLine, type JsonLines, readJsonLines } from "../common/index.ts";
import { TrialError, Usage } from "../record/index.ts";

export const PROBES_FILE = "probes.jsonl";

export const ConventionResult = z.object({
  name: z.string(),
  expected: z.unknown(),
  stated: z.unknown().optional(),
  correct: z.boolean(),
  gated: z.boolean(),
});

export const ProbeLine = z.object({
  probe: z.enum(["recite", "canary"]),
  trialId: z.string(),
  /** The unit's index and attempt (canary: the line is the attempt's record; older lines: 1). */
  index: z.number().int().nonnegative().optional(),
  attempt: z.number().int().positive().default(1),
  task: z.string(),
  agent: z.object({ name: z.string(), digest: z.string(), model: z.string() }),
  kgateVersion: z.string(),
  conventions: z.array(ConventionResult),
  /** canary: did the continuation of the artefact's first line reproduce it (or its canary GUID)? */
  continuationHit: z.boolean().optional(),
  /** canary: tokens of its two conversations (recite trials carry theirs in their records). */
  usage: Usage.optional(),
  error: TrialError.nullable().optional(),
});

export type ConventionResult = z.infer<typeof ConventionResult>;
export type ProbeLine = z.infer<typeof ProbeLine>;

export function appendProbeLine(runDir: string, line: ProbeLine): void {
  mkdirSync(runDir, { recursive: true });
  appendJsonLine(path.join(runDir, PROBES_FILE), ProbeLine.parse(line));
}

/** The probe lines of a run, in order, with every bad line reported by file and line. */
export function readProbeLines(runDir: string): JsonLines<ProbeLine> {
  return readJsonLines(path.join(runDir, PROBES_FILE), ProbeLine, "probe line");
}
