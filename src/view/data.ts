// Runs -> what the viewer shows: one index over every run (trials, cells, configurations,
// decisions) and, per trial, its detail read on demand from the record and its trajectory file.
// Reads a run's files only; nothing here runs a trial.
import path from "node:path";
import type { TrialRecord } from "../record/index.ts";
import { budgetTokens, KGATE_VERSION, mustFail, type RunSummary, type TrialRow } from "../report/index.ts";
import { diffRows } from "./diff-rows.ts";
import { shownOutput } from "./outputs.ts";
import {
  type TrialDetail,
  VIEW_DATA_VERSION,
  type ViewIndex,
  type ViewRun,
  type ViewTrial,
} from "./schema.ts";
import { capText, readTrajectoryForView } from "./trajectory.ts";

/** A trial row as the viewer needs it: the summary's row, and whether its cell must fail. */
export type SourceRow = Pick<
  TrialRow,
  | "trialId"
  | "task"
  | "cell"
  | "spec"
  | "agent"
  | "condition"
  | "index"
  | "attempt"
  | "superseded"
  | "outcome"
  | "attribution"
  | "stopReason"
  | "inputTokens"
  | "outputTokens"
  | "cacheReadTokens"
  | "cacheWriteTokens"
  | "durationMs"
> & { mustFail: boolean };

/** A run's rows and header, from a calibration summary or from bare records. */
export interface ViewSource {
  run: ViewRun;
  rows: SourceRow[];
}

/** One run as the viewer gets it: what to show, its records and where its files are. */
export interface RunInput {
  source: ViewSource;
  records: readonly TrialRecord[];
  dir: string;
  /** The run directory as shown in messages. */
  shown: string;
}

export interface ViewData {
  index: ViewIndex;
  /** Builds one trial's detail (reads its trajectory); undefined for an unknown key. */
  detail(key: string): TrialDetail | undefined;
}

/** A calibration run: the summary's rows, cells, configurations and decisions. */
export function sourceOfSummary(s: RunSummary): ViewSource {
  const specs = new Map(s.specs.map((x) => [x.name, x]));
  const rows = s.trials.map((t) => {
    const spec = specs.get(t.spec);
    return { ...t, mustFail: spec ? mustFail(spec) : t.condition === "-A" };
  });
  return { run: viewRun(s), rows };
}

function viewRun(s: RunSummary): ViewRun {
  return {
    id: s.runId,
    createdAt: s.createdAt,
    mode: s.mode,
    configurations: s.configurations.map((c) => ({
      label: c.label,
      agent: c.agent,
      model: c.model,
      harness: [c.harness, ...c.harnessVersions].join(" "),
      provider: c.provider,
      digest: c.digest,
    })),
    cells: s.cells.map((c) => ({
      task: c.task,
      label: c.label,
      spec: c.spec,
      condition: c.condition,
      passes: c.counts.pass,
      runs: c.counts.runs,
    })),
    decisions: Object.fromEntries(s.tasks.map((t) => [t.id, t.decision])),
    warnings: s.warnings,
  };
}

function detailOf(key: string, record: TrialRecord | undefined, run: RunInput, trialId: string): TrialDetail {
  const v = record?.verdict;
  const diff = v?.diff === undefined ? null : capText(v.diff, 64 * 1024);
  const detail: TrialDetail = {
    key,
    trialId,
    verdict: {
      status: v?.status ?? "unknown",
      reward: v?.reward ?? 0,
      score: v?.score ?? 0,
      attribution: v?.attribution ?? null,
      agreement: v?.agreement ?? {},
      reason: v?.reason === undefined ? null : capText(v.reason),
      diff,
      diffRows: diff === null ? null : diffRows(diff),
      criteria: (v?.criteria ?? []).map((c) => ({
        name: c.name,
        passed: c.passed,
        detail: c.detail ?? null,
        weight: c.weight ?? null,
        judge: c.judge
          ? {
              config: c.judge.config,
              model: c.judge.model ?? null,
              criterion: capText(c.judge.criterion),
              reads: c.judge.reads,
              verdict: c.judge.verdict,
              reason: c.judge.reason === undefined ? null : capText(c.judge.reason),
              costUsd: c.judge.usage?.costUsd ?? null,
            }
          : null,
      })),
    },
    error: record?.error
      ? `${record.error.owner}: ${record.error.kind}: ${capText(record.error.message)}`
      : null,
    outputs: (record?.outputs ?? []).map((o) => shownOutput(run.dir, trialId, o)),
    events: [],
    probes: [],
    problems: record ? [] : [`${run.shown}/trials.jsonl: the record of ${trialId} is no longer there`],
  };
  const relative = record?.trajectory;
  if (!relative) {
    detail.problems.push("no trajectory was recorded for this trial");
    return detail;
  }
  const file = path.resolve(run.dir, relative);
  if (path.relative(run.dir, file).startsWith("..") || path.isAbsolute(path.relative(run.dir, file))) {
    detail.problems.push(
      `trajectory path ${JSON.stringify(relative)} points outside the run directory: not read`,
    );
    return detail;
  }
  const read = readTrajectoryForView(file, `${run.shown}/${relative}`);
  return {
    ...detail,
    events: read.events,
    probes: read.probes,
    problems: [...detail.problems, ...read.problems],
  };
}

export function buildViewData(runs: readonly RunInput[], live: boolean, now: Date = new Date()): ViewData {
  const trials: ViewTrial[] = [];
  const sources = new Map<string, () => TrialDetail>();
  runs.forEach((run, r) => {
    const { run: header, rows } = run.source;
    const models = new Map(header.configurations.map((c) => [c.agent, c.model]));
    const byAttempt = new Map(run.records.map((rec) => [`${rec.trialId}#${rec.attempt}`, rec]));
    rows.forEach((t, i) => {
      const key = `${r}-${i}`;
      const model = models.get(t.agent);
      trials.push({
        key,
        run: header.id,
        trialId: t.trialId,
        task: t.task,
        cell: t.cell,
        spec: t.spec,
        agent: t.agent,
        configuration: model ? `${t.agent} (${model})` : t.agent,
        condition: t.condition,
        index: t.index,
        attempt: t.attempt,
        superseded: t.superseded,
        outcome: t.outcome,
        attribution: t.attribution,
        stopReason: t.stopReason,
        tokens: budgetTokens(t),
        durationMs: t.durationMs,
        mustFail: t.mustFail,
      });
      sources.set(key, () => detailOf(key, byAttempt.get(`${t.trialId}#${t.attempt}`), run, t.trialId));
    });
  });
  return {
    index: {
      viewDataVersion: VIEW_DATA_VERSION,
      generatedAt: now.toISOString(),
      kgateVersion: KGATE_VERSION,
      live,
      problems: [],
      runs: runs.map((run) => run.source.run),
      trials,
    },
    detail: (key) => sources.get(key)?.(),
  };
}
