// The ExamRecord: one line of runs/<run>/exams.jsonl per exam, with per-unit attribution and the
// exam's own statistics; appended as each exam finishes, read back with bad lines reported.
import { mkdirSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { appendJsonLine, type JsonLines, readJsonLines } from "../common/index.ts";
import { TrialError, Usage } from "../record/index.ts";
import { ExamSpec, PlannedUnit } from "./plan.ts";

export const EXAM_RECORD_VERSION = 1;
export const EXAMS_FILE = "exams.jsonl";

export const UnitResult = PlannedUnit.extend({
  correct: z.boolean(),
  /** The extracted answer (items) or null (tasks, and items left unanswered). */
  answer: z.string().nullable(),
  /** 1 when correct (the item's answer checks, the task's verdict passes), else 0. */
  score: z.number().min(0).max(1),
  /** Effort t_i: generated tokens attributed to the unit. */
  tokens: z.number().nonnegative(),
  /** Solving order o_i in (0, 1); null when no token was attributed. */
  solvingOrder: z.number().nullable(),
  /** t_i >= tau. */
  inWork: z.boolean(),
  /**
   * Value density p x acc / c from the reference run; null without one, or when it is infinite (the
   * reference solved the unit at 0 tokens with accuracy > 0: see densityInfinite).
   */
  density: z.number().nullable(),
  /** The reference solved the unit at 0 tokens with accuracy > 0: infinitely dense, ranked above every finite density. */
  densityInfinite: z.boolean().default(false),
});
export type UnitResult = z.infer<typeof UnitResult>;

const Rho = z.number().min(-1).max(1).nullable();

export const ExamStats = z.object({
  effortPosition: Rho,
  effortValue: Rho,
  effortDifficulty: Rho,
  orderPosition: Rho,
  /** Effort vs value controlling for position and difficulty. */
  partialEffortValue: Rho,
  /** |W intersect top-|W| by value density| / |W|; null without a reference run or with W empty. */
  densityOverlap: z.number().min(0).max(1).nullable(),
});
export type ExamStats = z.infer<typeof ExamStats>;

/** What produced an exam record or a run's summary: the run, the pool (name and sha256), the agent configuration, kgate's version, B and tau. */
export const ExamProvenance = z.object({
  runId: z.string(),
  kind: z.enum(["items", "tasks", "inline-tasks"]),
  pool: z.object({ name: z.string(), digest: z.string() }),
  agent: z.object({
    name: z.string(),
    digest: z.string(),
    harness: z.string(),
    model: z.string().nullable(),
  }),
  kgateVersion: z.string(),
  budget: z.number().int().positive(),
  tau: z.number().nonnegative(),
});
export type ExamProvenance = z.infer<typeof ExamProvenance>;

export const ExamRecord = ExamSpec.extend({
  recordVersion: z.literal(EXAM_RECORD_VERSION),
  ...ExamProvenance.shape,
  /** 1 for the first attempt of the exam; a retry in the same session counts up. */
  attempt: z.number().int().positive().default(1),
  startedAt: z.iso.datetime(),
  finishedAt: z.iso.datetime(),
  /** Tokens under the budget (the reasoning turn, or the task session). */
  usage: Usage,
  /** The extraction turn of an item exam (not counted against the budget); null for tasks. */
  extractionUsage: Usage.nullable(),
  /**
   * The extraction turn's sampling temperature: 0 (greedy), whatever the configuration's; null for
   * task exams (no extraction turn), failed exams and records made before the field.
   */
  extractionTemperature: z.number().nullable().default(null),
  /** Why the budgeted part ended: the provider's stop reason (items) or the session's (tasks). */
  stopReason: z.string(),
  units: z.array(UnitResult),
  /** sum v_i x score_i / sum v_i. */
  score: z.number().min(0).max(1),
  coverage: z.number().min(0).max(1),
  zeroRate: z.number().min(0).max(1),
  /** Tokens before any marker (items) or of turns touching no task folder (tasks). */
  unattributedTokens: z.number().nonnegative(),
  stats: ExamStats,
  /** A task exam's session: its trial record's id in the run's trials.jsonl (phases, trajectory, provenance). */
  trial: z.string().nullable().default(null),
  /** Set when the exam could not run (model or sandbox failure): left out of the analysis, rerun on resume. */
  error: TrialError.nullable(),
});
export type ExamRecord = z.infer<typeof ExamRecord>;

export function examsFileOf(runDir: string): string {
  return path.join(runDir, EXAMS_FILE);
}

/** Appends one record as one write(2); a torn last line of a dead process is closed off first. */
export function appendExamRecord(runDir: string, record: ExamRecord): void {
  mkdirSync(runDir, { recursive: true });
  appendJsonLine(examsFileOf(runDir), ExamRecord.parse(record));
}

/** Reads runs/<run>/exams.jsonl (a missing file is an empty run); bad lines are reported, not fatal. */
export function readExamRecords(runDir: string): JsonLines<ExamRecord> {
  return readJsonLines(examsFileOf(runDir), ExamRecord, "exam record");
}

/** The highest attempt recorded for each key (a resume numbers its attempts after them). */
export function latestAttempts(records: readonly ExamRecord[]): Map<string, number> {
  const latest = new Map<string, number>();
  for (const r of records) latest.set(r.key, Math.max(latest.get(r.key) ?? 0, r.attempt));
  return latest;
}

/** The latest record of each key that ran without error: what resume keeps and the analysis reads. */
export function finishedRecords(records: readonly ExamRecord[]): Map<string, ExamRecord> {
  const done = new Map<string, ExamRecord>();
  for (const r of records) if (r.error === null) done.set(r.key, r);
  return done;
}
