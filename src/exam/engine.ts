// Runs the planned exams one after another: each exam's record is appended as soon as it ends, a
// failed exam is recorded with its error (and rerun on resume), and one failure never stops the rest.
import { classifyError, ModelCallError } from "../agents/index.ts";
import { type TrialError, trialError, type Usage, ZERO_USAGE } from "../model/index.ts";
import { analyseExam, type ReferenceEntry, type UnitOutcome } from "./analysis.ts";
import type { Attribution } from "./attribution.ts";
import type { ExamSpec } from "./plan.ts";
import { appendExamRecord, EXAM_RECORD_VERSION, type ExamRecord } from "./record.ts";

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
  stopReason: string;
  /** In presentation order. */
  outcomes: UnitOutcome[];
  attribution: Attribution;
}

export interface ExamEngineOptions {
  runId: string;
  runDir: string;
  kind: ExamRecord["kind"];
  pool: ExamRecord["pool"];
  agent: ExamRecord["agent"];
  kgateVersion: string;
  budget: number;
  tau: number;
  reference: ReadonlyMap<string, ReferenceEntry> | null;
  runOne: (spec: ExamSpec) => Promise<ExamRun>;
  /** Progress lines for the operator (stderr). */
  log?: (line: string) => void;
  /** Aborted (e.g. Ctrl-C): no further exam starts. */
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

/** Runs every spec whose key is not in `done`; returns the records written. */
export async function runExams(
  specs: readonly ExamSpec[],
  done: ReadonlySet<string>,
  o: ExamEngineOptions,
): Promise<ExamRecord[]> {
  const todo = specs.filter((s) => !done.has(s.key));
  const written: ExamRecord[] = [];
  for (const [i, spec] of todo.entries()) {
    if (o.signal?.aborted) break;
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
    const analysis = analyseExam(spec.units, run.outcomes, run.attribution, o.tau, o.reference);
    const record: ExamRecord = {
      ...spec,
      recordVersion: EXAM_RECORD_VERSION,
      runId: o.runId,
      kind: o.kind,
      pool: o.pool,
      agent: o.agent,
      kgateVersion: o.kgateVersion,
      budget: o.budget,
      tau: o.tau,
      startedAt,
      finishedAt: new Date().toISOString(),
      usage: run.usage,
      extractionUsage: run.extractionUsage,
      stopReason: run.stopReason,
      ...analysis,
      error,
    };
    appendExamRecord(o.runDir, record);
    written.push(record);
    const outcome = error
      ? `error (${error.kind}): ${error.message}`
      : `score ${analysis.score.toFixed(3)}, coverage ${analysis.coverage.toFixed(2)}`;
    o.log?.(`[${i + 1}/${todo.length}] ${spec.key}: ${outcome}`);
  }
  return written;
}
