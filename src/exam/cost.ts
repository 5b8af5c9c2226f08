// What an exam costs at most and what a run of exams would cost: the bound of one exam (--max-cost
// reserves it before the exam starts) and the estimate per exam size and prompt from earlier exam
// records of the same agent configuration and pool (--estimate), on the shared cost module.
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import type { Pricing } from "../agents/index.ts";
import {
  type CallBound,
  type CostCaps,
  CostCeiling,
  type CostSample,
  callsWorstCaseUsd,
  estimateGroup,
  MESSAGE_FRAMING_TOKENS,
  type RunEstimate,
  runEstimate,
  sentTokensBound,
  sessionCostBound,
  type UnitBound,
} from "../cost/index.ts";
import type { ExamSpec } from "./plan.ts";
import { type ExamRecord, readExamRecords } from "./record.ts";

/** The most one exam can spend: its tokens and their cost (null without prices). */
export type ExamBound = (spec: ExamSpec) => UnitBound;

/**
 * The two model calls of an item or inline exam: the reasoning turn sends the exam and generates at
 * most B; the extraction turn sends the exam again, the trace (counted as the B tokens it was
 * generated as) and the extraction prompt, and generates at most its cap.
 */
export function twoTurnBound(
  pricing: Pricing | null,
  exam: string,
  budget: number,
  extraction: { prompt: string; maxOutputTokens: number },
): UnitBound {
  const calls: CallBound[] = [
    { input: sentTokensBound(exam), output: budget },
    {
      input: sentTokensBound(exam) + budget + MESSAGE_FRAMING_TOKENS + sentTokensBound(extraction.prompt),
      output: extraction.maxOutputTokens,
    },
  ];
  const sum = (f: (c: CallBound) => number) => calls.reduce((s, c) => s + f(c), 0);
  return {
    tokens: { input: sum((c) => c.input), output: sum((c) => c.output), cacheRead: 0, cacheWrite: 0 },
    usd: callsWorstCaseUsd(pricing, calls),
  };
}

/** A task exam: one session of the configuration under B tokens (input and output). */
export function sessionBound(caps: CostCaps | null, budget: number): UnitBound {
  return caps
    ? sessionCostBound(caps, budget)
    : { tokens: { input: budget, output: 0, cacheRead: 0, cacheWrite: 0 }, usd: null };
}

/** An exam record's cost (its budgeted part and its extraction turn), or null when unpriced. */
export function examCostUsd(r: ExamRecord): number | null {
  if (r.usage.costUsd === null) return null;
  return r.usage.costUsd + (r.extractionUsage?.costUsd ?? 0);
}

function examSample(r: ExamRecord): CostSample {
  const x = r.extractionUsage;
  return {
    tokens: {
      input: r.usage.inputTokens + (x?.inputTokens ?? 0),
      output: r.usage.outputTokens + (x?.outputTokens ?? 0),
      cacheRead: r.usage.cacheReadTokens + (x?.cacheReadTokens ?? 0),
      cacheWrite: r.usage.cacheWriteTokens + (x?.cacheWriteTokens ?? 0),
    },
    costUsd: examCostUsd(r),
  };
}

/** Every exam record under runs/ (unreadable lines are skipped: an estimate reads, it never fails). */
export function earlierExamRecords(runsDir: string): ExamRecord[] {
  if (!existsSync(runsDir)) return [];
  return readdirSync(runsDir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) => readExamRecords(path.join(runsDir, d.name)).records);
}

/**
 * The estimate of a run's exams, one group per exam size and prompt: from the earlier finished exams
 * of the same agent configuration digest, pool digest, kind, size and prompt, else from the bound.
 */
export function estimateExams(o: {
  specs: readonly ExamSpec[];
  kind: ExamRecord["kind"];
  agentDigest: string;
  poolDigest: string;
  records: readonly ExamRecord[];
  bound: ExamBound;
}): RunEstimate {
  const groups = new Map<string, ExamSpec[]>();
  for (const s of o.specs) {
    const key = `N=${s.n} ${s.prompt}`;
    groups.set(key, [...(groups.get(key) ?? []), s]);
  }
  return runEstimate(
    [...groups.entries()].map(([label, specs]) => {
      const { n, prompt } = specs[0]!;
      const same = o.records.filter(
        (r) =>
          r.error === null &&
          r.kind === o.kind &&
          r.agent.digest === o.agentDigest &&
          r.pool.digest === o.poolDigest &&
          r.n === n &&
          r.prompt === prompt,
      );
      // the group's bound: its dearest exam (exams of one size differ in their questions' text)
      const bounds = specs.map(o.bound);
      const dearest = bounds.reduce((a, b) => ((b.usd ?? 0) > (a.usd ?? 0) ? b : a));
      return estimateGroup(label, specs.length, same.map(examSample), dearest);
    }),
  );
}

/** --max-cost over exams: each reserves its bound; spent counts every earlier attempt of the run. */
export function examCeiling(
  ceilingUsd: number,
  earlier: readonly ExamRecord[],
  bound: (spec: ExamSpec) => number,
): CostCeiling<ExamSpec, ExamRecord> {
  return new CostCeiling<ExamSpec, ExamRecord>({
    ceilingUsd,
    spentBefore: earlier.reduce((s, r) => s + (examCostUsd(r) ?? 0), 0),
    worstCase: bound,
    costOf: examCostUsd,
    unit: "exam",
  });
}
