// Runs the planned exams side by side through the trial engine's bounded pool: each exam's record is
// appended as soon as it ends, a failed exam is recorded with its error (and rerun on resume), and one
// failure never stops the rest.
import { classifyError, ModelCallError } from "../agents/index.ts";
import { fieldPath } from "../common/index.ts";
import { type TrialError, trialError, type Usage, ZERO_USAGE } from "../model/index.ts";
import { PoolAbortedError, TrialPool } from "../trial/index.ts";
import { analyseExam, type ReferenceEntry, type UnitOutcome } from "./analysis.ts";
import type { Attribution } from "./attribution.ts";
import type { ExamSpec } from "./plan.ts";
import { appendExamRecord, EXAM_RECORD_VERSION, type ExamProvenance, ExamRecord } from "./record.ts";

/** A failure of the exam's infrastructure (sandbox, provider) with its classification. */
export class ExamRunFailure extends Error {
  override name = "ExamRunFailure";
  constructor(readonly trialError: TrialError) {
    super(trialError.message);
  }
}

/** What one exam's run hands to the analysis. */
export interface ExamRun {
  usage: Usage;
  extractionUsage: Usage | null;
  /** The extraction turn's temperature (items, inline tasks); absent without one. */
  extractionTemperature?: number;
  stopReason: string;
  /** In presentation order. */
  outcomes: UnitOutcome[];
  attribution: Attribution;
}

export interface ExamEngineOptions {
  /** What every record of the run says produced it. */
  provenance: ExamProvenance;
  runDir: string;
  reference: ReadonlyMap<string, ReferenceEntry> | null;
  runOne: (spec: ExamSpec) => Promise<ExamRun>;
  /** Exams in flight at once (default 1). */
  concurrency?: number;
  /** Progress lines for the operator (stderr). */
  log?: (line: string) => void;
  /** Aborted (e.g. Ctrl-C): no further exam starts; running ones end through their own signal. */
  signal?: AbortSignal;
}

function failedRun(spec: ExamSpec): ExamRun {
  const none = spec.units.map(() => 0);
  return {
    usage: { ...ZERO_USAGE },
    extractionUsage: null,
    stopReason: "error",
    outcomes: spec.units.map(() => ({ score: 0, correct: false, answer: null })),
    attribution: { tokens: none, order: spec.units.map(() => null), unattributed: 0, total: 0 },
  };
}

function recordOf(
  spec: ExamSpec,
  o: ExamEngineOptions,
  startedAt: string,
  run: ExamRun,
  error: ExamRecord["error"],
): ExamRecord {
  const analysis = analyseExam(spec.units, run.outcomes, run.attribution, o.provenance.tau, o.reference);
  return {
    ...spec,
    recordVersion: EXAM_RECORD_VERSION,
    ...o.provenance,
    startedAt,
    finishedAt: new Date().toISOString(),
    usage: run.usage,
    extractionUsage: run.extractionUsage,
    extractionTemperature: run.extractionTemperature ?? null,
    stopReason: run.stopReason,
    ...analysis,
    error,
  };
}

/**
 * Runs one exam and appends its record; an exception of the run, or a record that fails its schema,
 * becomes the record's error.
 */
async function runAndRecord(spec: ExamSpec, o: ExamEngineOptions): Promise<ExamRecord> {
  const startedAt = new Date().toISOString();
  let run: ExamRun;
  let error: ExamRecord["error"] = null;
  try {
    run = await o.runOne(spec);
  } catch (err) {
    run = failedRun(spec);
    const failure = classifyError(err);
    error =
      err instanceof ExamRunFailure
        ? err.trialError
        : err instanceof ModelCallError
          ? err.toTrialError()
          : trialError(
              failure.kind,
              (err instanceof Error ? err.message : String(err)).slice(0, 2000),
              failure.kind === "internal" && err instanceof Error ? err.stack : undefined,
            );
  }
  let record = recordOf(spec, o, startedAt, run, error);
  // a record its schema refuses becomes that exam's error record: the other exams go on
  const checked = ExamRecord.safeParse(record);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    const message = `the exam's record failed its schema at ${fieldPath(issue.path)}: ${issue.message}`;
    record = recordOf(
      spec,
      { ...o, reference: null },
      startedAt,
      failedRun(spec),
      trialError("internal", message),
    );
  }
  appendExamRecord(o.runDir, record);
  return record;
}

/** Runs every spec whose key is not in `done`, `concurrency` at a time; returns the records written, in plan order. */
export async function runExams(
  specs: readonly ExamSpec[],
  done: ReadonlySet<string>,
  o: ExamEngineOptions,
): Promise<ExamRecord[]> {
  const todo = specs.filter((s) => !done.has(s.key));
  const pool = new TrialPool<ExamSpec, ExamRecord>(
    { concurrency: o.concurrency ?? 1, signal: o.signal },
    () => "exam",
    (spec) => runAndRecord(spec, o),
  );
  let ended = 0;
  const records = await Promise.all(
    todo.map(async (spec) => {
      let record: ExamRecord;
      try {
        record = await pool.submit(spec);
      } catch (err) {
        if (err instanceof PoolAbortedError) return null;
        throw err;
      }
      const outcome = record.error
        ? `error (${record.error.kind}): ${record.error.message}`
        : `score ${record.score.toFixed(3)}, coverage ${record.coverage.toFixed(2)}`;
      o.log?.(`[${++ended}/${todo.length}] ${spec.key}: ${outcome}`);
      return record;
    }),
  );
  return records.filter((r): r is ExamRecord => r !== null);
}
