// What a triage unit costs at most and what a triage run would cost: the bound of a phase-0 unit and
// of a plan (--max-cost reserves it before the unit or plan starts), the ceiling over both, and the
// estimate per unit (phase 0) and for the plans from earlier records of the same configuration
// (--estimate), on the shared cost module. The live phase (--live, --resolve) is not bounded here.
import { existsSync, readdirSync } from "node:fs";
import type { Pricing, ResolvedAgentConfig } from "../agents/index.ts";
import {
  type CallBound,
  CostCeiling,
  type CostSample,
  callsWorstCaseUsd,
  estimateGroup,
  MESSAGE_FRAMING_TOKENS,
  priceTokens,
  type RunEstimate,
  runEstimate,
  sentTokensBound,
  sessionCostBound,
  type UnitBound,
} from "../cost/index.ts";
import type { Condition, LoadedTask } from "../task/index.ts";
import { inlineUnitPrompt } from "./inline-unit.ts";
import { itemPrompt } from "./item-unit.ts";
import type { ScoredUnit } from "./oracle.ts";
import type { PoolVariant, TriageUnit } from "./pool.ts";
import { type Framing, planPrompt, REASK } from "./prompt.ts";
import { Phase0Record, PlanRecord, readLines, type TriageSettings, triageRunFiles } from "./records.ts";
import { budgetFor } from "./scores.ts";

const tokensOf = (calls: readonly CallBound[]) => ({
  input: calls.reduce((s, c) => s + c.input, 0),
  output: calls.reduce((s, c) => s + c.output, 0),
  cacheRead: 0,
  cacheWrite: 0,
});
const callsBound = (pricing: Pricing | null, calls: CallBound[]): UnitBound => ({
  tokens: tokensOf(calls),
  usd: callsWorstCaseUsd(pricing, calls),
});

/**
 * A phase-0 unit: an item or inline task is one call sending its prompt and generating at most the
 * unit cap; a sandboxed task is one session under the configuration's caps on the task.
 */
export function phase0Bound(
  unit: TriageUnit,
  settings: Pick<TriageSettings, "unitCap">,
  config: ResolvedAgentConfig,
  tasks: ReadonlyMap<string, LoadedTask> | undefined,
): UnitBound {
  const s = unit.source;
  if (s.kind === "item")
    return callsBound(config.pricing, [
      { input: sentTokensBound(itemPrompt(s.item)), output: settings.unitCap },
    ]);
  const task = tasks?.get(s.task);
  if (!task) throw new Error(`unit ${unit.id}: task ${s.task} is not loaded`);
  if (s.kind === "inline") {
    const p = inlineUnitPrompt(task, s.condition as Condition);
    const input = sentTokensBound(p.system) + sentTokensBound(p.text);
    return callsBound(config.pricing, [{ input, output: settings.unitCap }]);
  }
  return sessionCostBound(config, task.spec.limits.maxTokens);
}

/**
 * A plan: the planner is sent the plan prompt and generates at most planTokens; when the reply is no
 * plan it is asked again with the prompt, its reply (counted as the planTokens it was generated as)
 * and the re-ask.
 */
export function planBound(
  pricing: Pricing | null,
  variant: PoolVariant,
  framing: Framing,
  budget: number,
  planTokens: number,
): UnitBound {
  const prompt = sentTokensBound(
    planPrompt(
      framing,
      variant.units.map((u) => ({ id: u.id, value: u.value, text: u.text })),
      budget,
    ),
  );
  return callsBound(pricing, [
    { input: prompt, output: planTokens },
    { input: prompt + planTokens + MESSAGE_FRAMING_TOKENS + sentTokensBound(REASK), output: planTokens },
  ]);
}

/** A phase-0 unit's or plan's job as the ceiling sees it. */
export interface TriageWork {
  key: string;
  unit?: TriageUnit;
  variant?: PoolVariant;
  framing?: Framing;
  /** A plan's alpha and its units as phase 0 scored them: its B is budgetFor(units, alpha). */
  alpha?: number;
  units?: readonly ScoredUnit[];
}
export interface TriageAttempt {
  value: { costUsd: number | null } | null;
}

/** What a model call of a unit or plan cost: tokens sent (cache tokens at the dearer of their prices) and generated. */
export function callCostUsd(
  pricing: Pricing | null,
  t: { input: number; output: number; cache?: number },
): number | null {
  if (!pricing) return null;
  const cachePrice = Math.max(
    pricing.cacheReadPerMTok ?? 0,
    pricing.cacheWritePerMTok ?? pricing.inputPerMTok,
  );
  return priceTokens(pricing, { input: t.input, output: t.output }) + ((t.cache ?? 0) * cachePrice) / 1e6;
}

/** A phase-0 unit's or plan's bound, in USD (the configuration is priced). */
export function workBound(
  work: TriageWork,
  settings: Pick<TriageSettings, "unitCap" | "planTokens">,
  config: ResolvedAgentConfig,
  tasks: ReadonlyMap<string, LoadedTask> | undefined,
): number {
  if (work.unit) return phase0Bound(work.unit, settings, config, tasks).usd!;
  const budget = budgetFor(work.units!, work.alpha!);
  return planBound(config.pricing, work.variant!, work.framing!, budget, settings.planTokens).usd!;
}

/** --max-cost over phase-0 units and plans; spent counts the run's earlier units and plans. */
export function triageCeiling(
  ceilingUsd: number,
  earlier: ReadonlyArray<{ costUsd: number | null }>,
  bound: (work: TriageWork) => number,
): CostCeiling<TriageWork, TriageAttempt> {
  return new CostCeiling<TriageWork, TriageAttempt>({
    ceilingUsd,
    spentBefore: earlier.reduce((s, r) => s + (r.costUsd ?? 0), 0),
    worstCase: bound,
    costOf: (a) => a.value?.costUsd ?? null,
    unit: "unit or plan",
  });
}

function runFolders(runsDir: string): string[] {
  if (!existsSync(runsDir)) return [];
  return readdirSync(runsDir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name);
}

const sameSource = (r: Phase0Record, u: TriageUnit) =>
  r.id === u.id &&
  r.unit.kind === u.source.kind &&
  (u.source.kind === "item"
    ? r.unit.pool === u.source.pool
    : r.unit.task === u.source.task && r.unit.condition === u.source.condition);

/**
 * The estimate of a triage run: one group per phase-0 unit (from earlier phase-0 records of the same
 * configuration digest and unit), one for the plans (from earlier plans of the same configuration
 * over the same units), else each at its bound.
 */
export function estimateTriage(o: {
  runsDir: string;
  settings: TriageSettings;
  config: ResolvedAgentConfig;
  units: readonly TriageUnit[];
  variants: readonly PoolVariant[];
  tasks?: ReadonlyMap<string, LoadedTask>;
}): RunEstimate {
  const quiet = () => {};
  const folders = runFolders(o.runsDir).map((f) => triageRunFiles(o.runsDir, f));
  const digest = o.config.digest;
  const phase0 = folders
    .flatMap((f) => readLines(f.phase0, Phase0Record, quiet))
    .filter((r) => r.configuration.digest === digest);
  const plans = folders
    .flatMap((f) => readLines(f.plans, PlanRecord, quiet))
    .filter((r) => r.configuration.digest === digest);
  const bounds = new Map(o.units.map((u) => [u.id, phase0Bound(u, o.settings, o.config, o.tasks)]));
  const groups = o.units.map((u) =>
    estimateGroup(
      `phase 0  ${u.id}`,
      1,
      phase0
        .filter((r) => sameSource(r, u))
        .map(
          (r): CostSample => ({
            tokens: { input: r.inputTokens, output: r.cost, cacheRead: 0, cacheWrite: 0 },
            costUsd: r.costUsd,
          }),
        ),
      bounds.get(u.id)!,
    ),
  );
  const count = o.variants.length * o.settings.alphas.length * o.settings.framings.length;
  const same = new Set(o.variants.map((v) => v.units.map((u) => u.id).join(",")));
  const planSamples = plans
    .filter((p) => same.has(p.units.join(",")))
    .map(
      (p): CostSample => ({
        tokens: {
          input: p.replies.reduce((s, r) => s + r.inputTokens, 0),
          output: p.replies.reduce((s, r) => s + r.outputTokens, 0),
          cacheRead: 0,
          cacheWrite: 0,
        },
        costUsd: p.costUsd,
      }),
    );
  // before phase 0 a plan's B is unknown: the prompt is priced with B at its most, every unit's bound
  const dearest = o.variants
    .flatMap((v) => {
      const cap = (u: TriageUnit) => {
        const b = bounds.get(u.id)!;
        return u.source.kind === "task" ? b.tokens.input : b.tokens.output;
      };
      const most = v.units.reduce((s, u) => s + cap(u), 0);
      return o.settings.framings.map((f) => planBound(o.config.pricing, v, f, most, o.settings.planTokens));
    })
    .reduce((a, b) => ((b.usd ?? 0) > (a.usd ?? 0) ? b : a));
  groups.push(estimateGroup("plans", count, planSamples, dearest));
  return runEstimate(groups);
}
