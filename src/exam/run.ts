// The planned exams as units of the one engine: each exam's record is appended as soon as it ends, an
// exam that failed is recorded with its error of the taxonomy (retried in the session when its kind
// is, else rerun on resume), a record the analysis cannot make valid becomes that exam's `internal`
// error, and one failure never stops the rest.
import { asTrialError } from "../agents/index.ts";
import { fieldPath } from "../common/index.ts";
import {
  FAILURE_KINDS,
  internalError,
  type TrialError,
  trialError,
  type Usage,
  ZERO_USAGE,
} from "../record/index.ts";
import { type Admit, type EngineUnit, type RunPlace, UnitEngine, type UnitKind } from "../trial/index.ts";
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
  /** The session's trial record (task exams), relative to the run: its phases, trajectory, provenance. */
  trial?: string | null;
}

/** One attempt of an exam, as its runner receives it. */
export interface ExamAttempt {
  /** `<key>`, `<key>.retry<k>` on a retry. */
  attemptId: string;
  attempt: number;
  signal: AbortSignal;
}

export interface RunExamsOptions {
  /** What every record of the run says produced it. */
  provenance: ExamProvenance;
  runDir: string;
  reference: ReadonlyMap<string, ReferenceEntry> | null;
  runOne: (spec: ExamSpec, attempt: ExamAttempt) => Promise<ExamRun>;
  /** Exams of one model provider share its limit (the agent's provider). */
  provider?: string;
  /** Exams in flight at once (default 1). */
  concurrency: number;
  /** Extra attempts of an exam whose attempt ended in a retried failure kind (default 1). */
  retries?: number;
  /** Progress lines for the operator (stderr). */
  log?: (line: string) => void;
  /** Aborted (e.g. Ctrl-C): no further exam starts; running ones end through their own signal. */
  signal?: AbortSignal;
  /** May this exam start? (e.g. the cost ceiling's reservation); a refused exam gets no record. */
  admit?: Admit<ExamSpec, ExamRecord>;
}

type ExamUnit = ExamSpec & EngineUnit;
type ExamJob = ExamUnit & RunPlace & { attemptId: string; attempt: number };

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

const specOf = (job: ExamJob): ExamSpec => {
  const { runId: _r, runDir: _d, attemptId: _i, attempt: _a, previousAttempt: _p, ...spec } = job;
  return spec;
};

/**
 * The exam's record from its run (or its error). A record its own schema refuses (a kgate bug)
 * becomes that exam's `internal` error record, naming the field: the other exams go on.
 */
function examRecord(
  o: RunExamsOptions,
  job: ExamJob,
  startedAt: string,
  run: ExamRun,
  error: TrialError | null,
): ExamRecord {
  const spec = specOf(job);
  const recordOf = (r: ExamRun, e: TrialError | null, reference: RunExamsOptions["reference"]) => ({
    ...spec,
    recordVersion: EXAM_RECORD_VERSION,
    ...o.provenance,
    attempt: job.attempt,
    startedAt,
    finishedAt: new Date().toISOString(),
    usage: r.usage,
    extractionUsage: r.extractionUsage,
    extractionTemperature: r.extractionTemperature ?? null,
    stopReason: r.stopReason,
    trial: run.trial ?? null,
    ...analyseExam(spec.units, r.outcomes, r.attribution, o.provenance.tau, reference),
    error: e,
  });
  const checked = ExamRecord.safeParse(recordOf(run, error, o.reference));
  if (checked.success) return checked.data;
  const issue = checked.error.issues[0]!;
  const message = `the exam's record failed its schema at ${fieldPath(issue.path)}: ${issue.message}`;
  return ExamRecord.parse(recordOf(failedRun(spec), trialError("internal", message), null));
}

function examKind(o: RunExamsOptions): UnitKind<ExamUnit, ExamJob, ExamRecord> {
  return {
    job: (spec, attempt, run) => ({
      ...spec,
      ...run,
      attempt,
      attemptId: attempt > 1 ? `${spec.key}.retry${attempt - 1}` : spec.key,
    }),
    providerOf: () => o.provider ?? "exam",
    errorOf: (record) => record.error,
    outcomeOf: (record) => (record.error && !FAILURE_KINDS[record.error.kind].counted ? "infra" : "pass"),
    crashed: (job, err) => {
      const now = new Date().toISOString();
      const record = examRecord(o, job, now, failedRun(specOf(job)), internalError(err));
      appendExamRecord(o.runDir, record);
      return record;
    },
  };
}

/** Runs every spec whose key is not in `done` through the engine; returns the records written, in plan order. */
export async function runExams(
  specs: readonly ExamSpec[],
  done: ReadonlySet<string>,
  latestAttempt: ReadonlyMap<string, number>,
  o: RunExamsOptions,
): Promise<{ records: ExamRecord[]; internal: ExamRecord[]; cancelled: boolean }> {
  const todo = specs
    .filter((s) => !done.has(s.key))
    .map((s) => ({ ...s, previousAttempt: latestAttempt.get(s.key) ?? 0 }));
  let ended = 0;
  const engine = new UnitEngine<ExamUnit, ExamJob, ExamRecord>({
    runId: o.provenance.runId,
    runDir: o.runDir,
    kind: examKind(o),
    concurrency: o.concurrency,
    retries: o.retries,
    signal: o.signal,
    admit: o.admit,
    runner: async (job, signal) => {
      const startedAt = new Date().toISOString();
      let run: ExamRun;
      let error: TrialError | null = null;
      try {
        run = await o.runOne(specOf(job), { attemptId: job.attemptId, attempt: job.attempt, signal });
      } catch (err) {
        run = failedRun(job);
        error = err instanceof ExamRunFailure ? err.trialError : asTrialError(err);
        // an interrupted exam is cancelled, whatever its call threw on the way out
        if (signal.aborted) error = trialError("cancelled", "the exam was interrupted");
      }
      const record = examRecord(o, job, startedAt, run, error);
      appendExamRecord(o.runDir, record);
      return record;
    },
    events: {
      refused: (job, reason) => o.log?.(`${job.key}: not started: ${reason}`),
      finished: (job, record, _outcome, retrying) => {
        const outcome = record.error
          ? `error (${record.error.kind}): ${record.error.message}${retrying ? " (retried)" : ""}`
          : `score ${record.score.toFixed(3)}, coverage ${record.coverage.toFixed(2)}`;
        if (!retrying) ended += 1;
        o.log?.(`[${ended}/${todo.length}] ${job.attemptId}: ${outcome}`);
      },
    },
  });
  const records = await engine.runAll(todo);
  return { records, internal: engine.internal, cancelled: engine.cancelled };
}
