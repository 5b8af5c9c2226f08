// An exam run on disk: runs/<run>/exam.json (what was planned, by what), exams.jsonl (one record per
// exam, appended as it ends), and the report files; resuming refuses a changed pool, agent or plan.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { fieldPath, lineProblemText } from "../common/index.ts";
import { Condition } from "../task/index.ts";
import type { ReferenceEntry } from "./analysis.ts";
import { effortChart } from "./chart.ts";
import { examCeiling } from "./cost.ts";
import { formatExamSummary } from "./format.ts";
import { type ExamSpec, PlanFactors, type PoolUnit, planExams } from "./plan.ts";
import {
  type ExamProvenance,
  type ExamRecord,
  finishedRecords,
  latestAttempts,
  readExamRecords,
} from "./record.ts";
import { type ExamAttempt, type ExamRun, runExams } from "./run.ts";
import { type ExamSummary, summariseExams } from "./summary.ts";

export const EXAM_RUN_FILE = "exam.json";
export const REPORT_FILES = { json: "report.json", text: "report.txt", chart: "effort-by-position.svg" };

export const ExamRunFile = z.object({
  version: z.literal(1),
  runId: z.string(),
  kind: z.enum(["items", "tasks", "inline-tasks"]),
  /** The pool as named on the command line (an item pool, or the task ids), and its digest. */
  pool: z.object({ name: z.string(), source: z.string(), digest: z.string() }),
  agent: z.object({ name: z.string(), digest: z.string() }),
  /** The condition of a task exam's tasks; null for items. */
  condition: Condition.nullable().default(null),
  budget: z.number().int().positive(),
  tau: z.number().nonnegative(),
  factors: PlanFactors,
  reference: z.object({ file: z.string(), digest: z.string() }).nullable(),
  createdAt: z.iso.datetime(),
});
export type ExamRunFile = z.infer<typeof ExamRunFile>;

export class ExamRunError extends Error {
  override name = "ExamRunError";
}

export function readExamRunFile(runDir: string): ExamRunFile {
  const file = path.join(runDir, EXAM_RUN_FILE);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, "utf8"));
  } catch (err) {
    throw new ExamRunError(`${file}: cannot read the exam run: ${(err as Error).message}`);
  }
  const parsed = ExamRunFile.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ExamRunError(`${file} (${fieldPath(issue.path)}): ${issue.message}`);
  }
  return parsed.data;
}

export interface SessionInputs {
  runDir: string;
  run: ExamRunFile;
  /** The agent as it goes into every record. */
  agent: ExamRecord["agent"];
  kgateVersion: string;
  units: PoolUnit[];
  reference: ReadonlyMap<string, ReferenceEntry> | null;
  runOne: (spec: Parameters<typeof runExams>[0][number], attempt: ExamAttempt) => Promise<ExamRun>;
  /** Exams of one model provider share its limit. */
  provider?: string;
  /** Exams in flight at once (not part of the plan: a resume may use another). */
  concurrency: number;
  log?: (line: string) => void;
  signal?: AbortSignal;
  /** --max-cost: the ceiling in USD and the most one exam can cost (every exam priced). */
  maxCost?: { ceilingUsd: number; worstCase: (spec: ExamSpec) => number };
}

/** Where a resumed run differs from what it was started with, as `field: was -> now`. */
function changes(was: ExamRunFile, now: ExamRunFile): string[] {
  const pairs: Array<[string, unknown, unknown]> = [
    ["pool.digest", was.pool.digest, now.pool.digest],
    ["agent.digest", was.agent.digest, now.agent.digest],
    ["reference.digest", was.reference?.digest ?? null, now.reference?.digest ?? null],
    ["condition", was.condition, now.condition],
  ];
  return pairs.filter(([, a, b]) => a !== b).map(([field, a, b]) => `${field}: ${String(a)} -> ${String(b)}`);
}

export interface SessionResult {
  summary: ExamSummary;
  written: ExamRecord[];
  /** Records of kgate's own errors (`internal`): the command reports them and fails. */
  internal: ExamRecord[];
  cancelled: boolean;
  problems: string[];
}

/** Runs the exams of a new run, or the missing ones of a resumed run, then writes the report files. */
export async function runExamSession(inputs: SessionInputs, resume: boolean): Promise<SessionResult> {
  const runFile = path.join(inputs.runDir, EXAM_RUN_FILE);
  if (resume) {
    const changed = changes(readExamRunFile(inputs.runDir), inputs.run);
    if (changed.length > 0)
      throw new ExamRunError(
        `cannot resume ${inputs.run.runId}: it was started with other inputs (${changed.join("; ")})`,
      );
  } else {
    if (existsSync(runFile))
      throw new ExamRunError(`${runFile} exists: resume it with --resume ${inputs.run.runId}`);
    mkdirSync(inputs.runDir, { recursive: true });
    writeFileSync(runFile, `${JSON.stringify(inputs.run, null, 2)}\n`);
  }
  const specs = planExams(inputs.units, inputs.run.factors);
  const before = readExamRecords(inputs.runDir);
  const done = new Set(finishedRecords(before.records).keys());
  if (done.size > 0) inputs.log?.(`resuming: ${done.size} of ${specs.length} exams already finished`);
  const provenance: ExamProvenance = {
    runId: inputs.run.runId,
    kind: inputs.run.kind,
    pool: { name: inputs.run.pool.name, digest: inputs.run.pool.digest },
    agent: inputs.agent,
    kgateVersion: inputs.kgateVersion,
    budget: inputs.run.budget,
    tau: inputs.run.tau,
  };
  const ceiling = inputs.maxCost
    ? examCeiling(inputs.maxCost.ceilingUsd, before.records, inputs.maxCost.worstCase)
    : null;
  const ran = await runExams(specs, done, latestAttempts(before.records), {
    admit: ceiling?.admit,
    provenance,
    runDir: inputs.runDir,
    reference: inputs.reference,
    runOne: inputs.runOne,
    provider: inputs.provider,
    concurrency: inputs.concurrency,
    log: inputs.log,
    signal: inputs.signal,
  });
  const all = readExamRecords(inputs.runDir);
  const summary = {
    ...summariseExams(all.records, specs.length, provenance),
    budget: ceiling?.state ?? null,
  };
  writeFileSync(path.join(inputs.runDir, REPORT_FILES.json), `${JSON.stringify(summary, null, 2)}\n`);
  writeFileSync(path.join(inputs.runDir, REPORT_FILES.text), formatExamSummary(summary));
  writeFileSync(path.join(inputs.runDir, REPORT_FILES.chart), effortChart(summary));
  return {
    summary,
    written: ran.records,
    internal: ran.internal,
    cancelled: ran.cancelled,
    problems: all.problems.map(lineProblemText),
  };
}
