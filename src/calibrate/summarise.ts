// Plan + trial records -> the run summary that every report renders: per cell counts, Wilson
// intervals, clause verdicts, attribution, usage; per task the decision and its reasons; the
// aggregate rows (e.g. 51/75); every trial as a row.

import { wilson } from "../common/index.ts";
import { type TrialRecord, trialCostUsd } from "../record/index.ts";
import type {
  Aggregate,
  AttributionCounts,
  CellSummary,
  Clause,
  RunSummary,
  TaskSummary,
  TrialRow,
  UsageTotals,
} from "../report/index.ts";
import { configurationsOf, provenanceOf, SUMMARY_VERSION } from "../report/index.ts";
import { resumeHint, spentUsd } from "./budget.ts";
import { Curtailer } from "./curtail.ts";
import type { Plan } from "./plan.ts";
import { maxTrials } from "./plan.ts";
import { plumbingOf } from "./plumbing.ts";
import { type CeilingHold, pendingReason, sequentialResult } from "./policy.ts";
import { budgetLine, ceilingSentence, type RefusedCell, refusedOfTask } from "./refused.ts";
import { type ClauseInput, type Decision, decide, fixedClause } from "./rule.ts";
import { passKCurve, passRate, pooledPassK } from "./stats.ts";
import { caveatsOf, describeRule } from "./summary-words.ts";
import {
  type CellTally,
  cellOutcomeOf,
  cellsOfTask,
  clauseInputOf,
  type Tally,
  tallyRecords,
} from "./tally.ts";

const zeroUsage = (): UsageTotals => ({
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  modelCalls: 0,
  costUsd: 0,
  costUnknown: 0,
});

function addUsage(total: UsageTotals, record: TrialRecord): void {
  const u = record.usage;
  total.inputTokens += u.inputTokens;
  total.outputTokens += u.outputTokens;
  total.cacheReadTokens += u.cacheReadTokens;
  total.cacheWriteTokens += u.cacheWriteTokens;
  total.modelCalls += u.modelCalls;
  if (u.costUsd === null) total.costUnknown += 1;
  else total.costUsd += u.costUsd;
}

/** Every attempt of the planned cells' trials (retried and superseded ones too): what the run spent. */
export function spentUsage(tally: Tally, records: Iterable<TrialRecord>): UsageTotals {
  const total = zeroUsage();
  const left = new Set([...tally.strays, ...tally.mismatched]);
  for (const r of records) if (!left.has(r)) addUsage(total, r);
  return total;
}

function sumUsage(parts: UsageTotals[]): UsageTotals {
  const total = zeroUsage();
  for (const p of parts) for (const k of Object.keys(total) as (keyof UsageTotals)[]) total[k] += p[k];
  return total;
}

function attributionOf(records: Iterable<TrialRecord>): AttributionCounts {
  const counts: AttributionCounts = {
    "default-convention": 0,
    perturbed: {},
    format: 0,
    other: 0,
    unattributed: 0,
  };
  for (const r of records) {
    if (cellOutcomeOf(r) !== "fail") continue;
    const a = r.verdict.attribution;
    if (a === null) counts.unattributed += 1;
    else if (a.startsWith("perturbed-convention:")) {
      const name = a.slice("perturbed-convention:".length);
      counts.perturbed[name] = (counts.perturbed[name] ?? 0) + 1;
    } else counts[a as "default-convention" | "format" | "other"] += 1;
  }
  return counts;
}

/** A cell's clause; `held`: its missing trials the ceiling holds back or curtailment skipped, for the words. */
function clauseOf(plan: Plan, t: CellTally, held: Pick<ClauseInput, "refused" | "curtailed">): Clause | null {
  if (plan.mode === "sequential") return sequentialResult(plan, t, held);
  const input = clauseInputOf(t, plan.n);
  return input && fixedClause({ ...input, ...held });
}

/** The trials of a cell the ceiling holds back that have no record (an infrastructure error's retry is counted as infra). */
const notStarted = (t: CellTally, held: RefusedCell | undefined) =>
  held?.trials.filter((i) => !t.slots.has(i)) ?? [];

function cellSummary(plan: Plan, t: CellTally, held: RefusedCell | undefined): CellSummary {
  const refused = notStarted(t, held);
  let missing = 0;
  for (let i = 0; i < plan.n; i++) if (!t.slots.has(i) && !refused.includes(i)) missing += 1;
  const usage = zeroUsage();
  for (const r of t.slots.values()) addUsage(usage, r);
  return {
    key: t.cell.key,
    task: t.cell.task,
    spec: t.cell.spec,
    label: t.cell.label,
    agent: t.cell.agent,
    condition: t.cell.condition,
    require: t.cell.require,
    control: t.cell.control,
    counts: {
      planned: plan.mode === "sequential" ? maxTrials(plan) : plan.n,
      pass: t.passes,
      fail: t.fails,
      infra: t.infra,
      unverified: t.unverified,
      missing,
      curtailed: 0,
      refused: refused.length,
      runs: t.runs,
    },
    rate: passRate(t.passes, t.runs),
    interval: wilson(t.passes, t.runs),
    passK: passKCurve(t.passes, t.runs),
    clause: clauseOf(plan, t, { refused: refused.length }),
    attribution: attributionOf(t.slots.values()),
    usage,
  };
}

/** A settled task's skipped trials (slots without a record) count as curtailed, not missing. */
function countCurtailed(c: CellSummary, left: number): number {
  const skipped = Math.min(c.counts.missing, left);
  c.counts.curtailed = skipped;
  c.counts.missing -= skipped;
  return skipped;
}

/**
 * A cell of a task curtailment decided: its skipped trials counted as curtailed, its clause as what
 * the trials it ran show, saying that it was curtailed and that its interval is of fewer trials.
 */
function curtailedCell(c: CellSummary, cut: { left: number; shown: Clause }): void {
  const skipped = countCurtailed(c, cut.left);
  const ran = c.counts.pass + c.counts.fail;
  const what = skipped > 0 ? `${skipped} trial(s) not run` : "no trial added";
  c.clause = {
    ...cut.shown,
    reason:
      `${cut.shown.reason}; curtailed: ${what} because no outcome of them changes the task's decision, ` +
      `so the rate and interval are of the ${ran} trial(s) run`,
  };
}

function aggregate(spec: string, scope: Aggregate["scope"], cells: CellSummary[]): Aggregate {
  const passes = cells.reduce((s, c) => s + c.counts.pass, 0);
  const runs = cells.reduce((s, c) => s + c.counts.runs, 0);
  return {
    spec,
    scope,
    tasks: new Set(cells.map((c) => c.task)).size,
    passes,
    runs,
    rate: passRate(passes, runs),
    interval: wilson(passes, runs),
    passK: pooledPassK(cells.map((c) => c.passK)),
  };
}

function trialRow(plan: Plan, tally: Tally, record: TrialRecord): TrialRow | null {
  const cell = plan.cells.find(
    (c) => c.task === record.task.id && c.agent === record.agent.name && c.condition === record.condition,
  );
  if (!cell) return null;
  const latest = tally.cells.get(cell.key)?.slots.get(record.index);
  return {
    trialId: record.trialId,
    task: record.task.id,
    cell: cell.label,
    spec: cell.spec,
    agent: record.agent.name,
    condition: record.condition,
    index: record.index,
    attempt: record.attempt,
    outcome: cellOutcomeOf(record),
    superseded: latest !== record,
    attribution: record.verdict.attribution,
    stopReason: record.stopReason,
    error: record.error,
    inputTokens: record.usage.inputTokens,
    outputTokens: record.usage.outputTokens,
    cacheReadTokens: record.usage.cacheReadTokens,
    cacheWriteTokens: record.usage.cacheWriteTokens,
    costUsd: trialCostUsd(record),
    durationMs: Math.max(0, Date.parse(record.finishedAt) - Date.parse(record.startedAt)),
    trajectory: record.trajectory,
    artefactOpened: record.artefactOpened,
    canaryLeak: record.canaryLeak,
    score: record.verdict.score,
    criteria: record.verdict.criteria.map((c) => ({
      name: c.name,
      passed: c.passed,
      weight: c.weight ?? null,
    })),
  };
}

export function summarise(
  plan: Plan,
  records: readonly TrialRecord[],
  extraWarnings: readonly string[] = [],
  now: Date = new Date(),
): RunSummary {
  const tally = tallyRecords(plan, records);
  const curtailer = new Curtailer(plan);
  const spent = spentUsd(plan, records);
  const refused = plan.tasks.flatMap((t) =>
    refusedOfTask(plan, tally, t.id, spent, plan.curtail ? curtailer : null),
  );
  const cells = [...tally.cells.values()].map((t) =>
    cellSummary(
      plan,
      t,
      refused.find((r) => r.key === t.cell.key),
    ),
  );
  const plumbing = plumbingOf(plan);
  const tasks: TaskSummary[] = plan.tasks.map((task) => {
    const mine = cells.filter((c) => c.task === task.id);
    const clauses = mine.map((c) => c.clause).filter((c): c is Clause => c !== null);
    const ofTask = refused.filter((r) => r.task === task.id);
    const held: CeilingHold | null =
      ofTask.length > 0
        ? {
            notStarted: mine.reduce((sum, c) => sum + c.counts.refused, 0),
            sentence: ceilingSentence(plan, ofTask, spent),
          }
        : null;
    const ruled = decide(clauses, {
      pending: pendingReason(plan, tally, task.id, held),
      strict: plan.strict,
      resume: resumeHint(plan, held !== null),
    });
    // curtailment decides only what the rule would leave incomplete for want of skipped trials
    const curtailed =
      plan.curtail && ruled.decision === "incomplete"
        ? curtailer.curtailedDecision(tally, task.id, clauses)
        : null;
    const { decision, borderline } = curtailed ?? ruled;
    // a decided task the ceiling still held trials of (without curtailment) says so after its reasons
    const reasons = [
      ...(curtailed ?? ruled).reasons,
      ...(held && decision !== "incomplete" ? [held.sentence] : []),
    ];
    for (const [key, cut] of curtailed?.cells ?? []) curtailedCell(mine.find((c) => c.key === key)!, cut);
    // a task the rule decides on its own: its clauses keep their words, its skipped trials are curtailed
    if (plan.curtail && !curtailed && ruled.decision !== "incomplete") {
      const settled = curtailer.analyse(tally, task.id);
      if (settled.settled)
        for (const [key, left] of settled.left) {
          const c = mine.find((x) => x.key === key)!;
          const curtailed = countCurtailed(c, left);
          c.clause = clauseOf(plan, tally.cells.get(key)!, { refused: c.counts.refused, curtailed });
        }
    }
    return {
      id: task.id,
      title: task.title,
      gate: task.gate,
      decision,
      borderline,
      plumbing: plumbing !== null,
      reasons,
      notes: task.notes,
      usage: sumUsage(cellsOfTask(tally, task.id).map((t) => cells.find((c) => c.key === t.cell.key)!.usage)),
    };
  });
  const retained = new Set(tasks.filter((t) => t.decision === "retain").map((t) => t.id));
  const specNames = plan.specs.map((s) => s.name).filter((name) => cells.some((c) => c.spec === name));
  const aggregates = specNames.flatMap((spec) => {
    const of = cells.filter((c) => c.spec === spec);
    return [
      aggregate(spec, "all", of),
      aggregate(
        spec,
        "retained",
        of.filter((c) => retained.has(c.task)),
      ),
    ];
  });
  const trials = records.map((r) => trialRow(plan, tally, r)).filter((r): r is TrialRow => r !== null);
  const current = trials.filter((t) => !t.superseded);
  const count = (o: TrialRow["outcome"]) => current.filter((t) => t.outcome === o).length;
  const decisions: Record<Decision, number> = { retain: 0, revise: 0, discard: 0, incomplete: 0 };
  for (const t of tasks) decisions[t.decision] += 1;
  const budget = {
    ceilingUsd: plan.ceiling?.usd ?? null,
    spentUsd: spent,
    reservedUsd: 0,
    refused: refused.map(({ key: _key, ...r }) => r),
  };
  const warnings = [...extraWarnings, ...(plan.ceiling ? [budgetLine(plan, budget)] : [])];
  if (tally.mismatched.length > 0) {
    warnings.push(
      `${tally.mismatched.length} record(s) were made with a task, artefact or agent digest other than the plan's and are left out`,
    );
  }
  const notAnswered = [...tally.cells.values()].reduce((sum, t) => sum + t.notAnswered, 0);
  if (notAnswered > 0) {
    warnings.push(
      `${notAnswered} -A trial(s) chose REQUEST_SPEC (ran with the artefact) or DECLINE before starting: ` +
        "counted as unverified, left out of their -A cell's rate (the monitoring section breaks them out per cell)",
    );
  }
  if (tally.strays.length > 0) {
    warnings.push(
      `${tally.strays.length} record(s) belong to another run or to no planned cell and are left out`,
    );
  }
  return {
    summaryVersion: SUMMARY_VERSION,
    runId: plan.runId,
    createdAt: plan.createdAt,
    generatedAt: now.toISOString(),
    mode: plan.mode,
    n: plan.n,
    rule: describeRule(plan),
    specs: plan.specs
      .filter((s) => specNames.includes(s.name))
      .map((s) => ({
        name: s.name,
        agent: s.agent,
        condition: s.condition,
        require: s.require,
        control: s.control,
      })),
    configurations: configurationsOf(plan.agents, plan.specs, records),
    provenance: provenanceOf(records),
    tasks,
    cells,
    aggregates,
    trials,
    totals: {
      trials: current.length,
      pass: count("pass"),
      fail: count("fail"),
      infra: count("infra"),
      unverified: count("unverified"),
      usage: sumUsage(cells.map((c) => c.usage)),
      spent: spentUsage(tally, records),
      decisions,
    },
    warnings,
    budget,
    plumbing,
    caveats: caveatsOf(tasks, cells, plan.mode === "sequential" ? plan.sequential.alpha : 0.05),
  };
}
