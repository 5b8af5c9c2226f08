// A triage run end to end: phase 0 over every unit (skipping those already recorded), then for each
// injection ratio x alpha x framing a plan from the planner, scored under regimes U and E simulated
// from phase 0 (and run live, or re-solved with a_i stated, when asked). Phase-0 units and plans are
// units of the one engine (bounded, retried by failure kind, cancelled on Ctrl-C); each is appended
// as it finishes, and a failure is logged with its kind, not fatal.
import type { ChatModel, Pricing, RetryPolicy } from "../agents/index.ts";
import { withRetry } from "../agents/index.ts";
import { appendJsonLine, runSettingDefault } from "../common/index.ts";
import { callCostUsd } from "./cost.ts";
import { type KeyedRunInput, runKeyed } from "./keyed.ts";
import { executeEnforcedLive, type UnitRunner } from "./live.ts";
import { executeAdvisoryLive } from "./live-advisory.ts";
import type { ScoredUnit } from "./oracle.ts";
import { askForPlan } from "./planner.ts";
import { injectedVariants, type PoolVariant, type TriageUnit } from "./pool.ts";
import { planPrompt } from "./prompt.ts";
import {
  type ErrorRecord,
  type Phase0Record,
  Phase0Record as Phase0RecordSchema,
  PlanRecord,
  readLines,
  type TriageSettings,
} from "./records.ts";
import { budgetFor, detection, efficiency, regret, scorePlan, waste } from "./scores.ts";

export const COST_KIND =
  "output tokens as the provider reports them (reasoning/thinking tokens included: Anthropic output_tokens and OpenAI completion_tokens count them)";

export interface TriageRunInput extends KeyedRunInput {
  /** Every unit: the solvable pool and the unsolvable supply. */
  units: TriageUnit[];
  /** A solvable unit's own unsolvable replacement (a gated task's -A twin); items use the supply. */
  twins?: ReadonlyMap<string, TriageUnit>;
  runUnit: UnitRunner;
  /** Runs a planned unit live under regime E (`--live`); defaults to runUnit (an item's cap is its max_tokens). */
  liveUnit?: UnitRunner;
  /** Runs a planned unit live under regime U as phase 0 ran it, capped (defaults to liveUnit, then runUnit). */
  advisoryUnit?: UnitRunner;
  /** Phase 0's own output-token cap of a unit under regime U live (default settings.unitCap; Infinity: none). */
  advisoryCap?: number;
  /** Runs a unit with its limit also stated in its prompt; required when settings.resolve is set. */
  resolveUnit?: UnitRunner;
  planner: ChatModel;
  retry: RetryPolicy;
  /** The configuration's prices: each unit's and plan's record states its cost. */
  pricing?: Pricing | null;
}

export interface TriageRunResult {
  phase0: Phase0Record[];
  plans: PlanRecord[];
  /** Units and plans that failed, by their last attempt's error (of the taxonomy). */
  failures: ErrorRecord[];
  errors: number;
  /** kgate's own errors (`internal`): the command reports them and fails. */
  internal: ErrorRecord[];
  cancelled: boolean;
  /** Units and plans not started because their reservation would cross the cost ceiling. */
  refused: string[];
}

const planKey = (ratio: number, alpha: number, framing: string) =>
  `r=${ratio} alpha=${alpha} framing=${framing}`;

async function phase0(input: TriageRunInput, done: Map<string, Phase0Record>) {
  const { settings, files, log } = input;
  const now = input.now ?? (() => new Date());
  const todo = input.units.filter((u) => !done.has(u.id)).map((unit) => ({ key: unit.id, unit }));
  let ended = 0;
  return runKeyed(
    input,
    "phase0",
    todo,
    runSettingDefault("retries", "triage"),
    async ({ unit }, signal) => {
      const outcome = await input.runUnit(unit, settings.unitCap, undefined, signal);
      const record: Phase0Record = {
        id: unit.id,
        cost: outcome.cost,
        correct: outcome.correct && !unit.unsolvable,
        value: unit.value,
        unsolvable: unit.unsolvable,
        capped: outcome.capped,
        unit:
          unit.source.kind === "item"
            ? { kind: "item", pool: unit.source.pool }
            : { kind: unit.source.kind, task: unit.source.task, condition: unit.source.condition },
        costKind: COST_KIND,
        inputTokens: outcome.inputTokens,
        costUsd:
          outcome.costUsd !== undefined
            ? outcome.costUsd
            : callCostUsd(input.pricing ?? null, {
                input: outcome.inputTokens,
                output: outcome.cost,
                cache: outcome.cacheTokens,
              }),
        stopReason: outcome.stopReason,
        answer: outcome.answer,
        reply: outcome.reply,
        configuration: settings.configuration,
        model: settings.model,
        kgateVersion: settings.kgateVersion,
        finishedAt: now().toISOString(),
      };
      appendJsonLine(files.phase0, record);
      done.set(unit.id, record);
      log(
        `phase 0 [${++ended}/${todo.length}] ${unit.id}: ${record.cost} tokens, ${record.correct ? "correct" : "wrong"}${record.capped ? " (capped)" : ""}`,
      );
      return record;
    },
    (r) => (r.correct ? "pass" : "fail"),
  );
}

function scored(variant: PoolVariant, done: Map<string, Phase0Record>): ScoredUnit[] | null {
  const units: ScoredUnit[] = [];
  for (const u of variant.units) {
    const r = done.get(u.id);
    if (!r) return null;
    units.push({ id: r.id, cost: r.cost, correct: r.correct, value: r.value });
  }
  return units;
}

async function onePlan(
  input: TriageRunInput,
  variant: PoolVariant,
  units: ScoredUnit[],
  alpha: number,
  framing: TriageSettings["framings"][number],
  signal: AbortSignal,
): Promise<PlanRecord> {
  const { settings } = input;
  const budget = budgetFor(units, alpha);
  const prompt = planPrompt(
    framing,
    variant.units.map((u) => ({ id: u.id, value: u.value, text: u.text })),
    budget,
  );
  const byId = new Map(units.map((u) => [u.id, u]));
  const outcome = await withRetry(
    () =>
      askForPlan(input.planner, prompt, new Set(byId.keys()), budget, {
        maxOutputTokens: settings.planTokens,
        temperature: 0,
        signal,
      }),
    input.retry,
    {
      signal,
      onRetry: (n) =>
        input.log(`plan ${planKey(variant.ratio, alpha, framing)}: ${n.message}, retry ${n.retry}/${n.of}`),
    },
  );
  const steps = outcome.parsed?.steps ?? [];
  const s = scorePlan(
    units,
    steps.map((st) => ({ unit: byId.get(st.id)!, tokens: st.tokens })),
    budget,
    { permutations: settings.permutations, seed: settings.seed },
  );
  const finite = (v: number) => (Number.isNaN(v) ? null : v);
  const pool = new Map(variant.units.map((u) => [u.id, u]));
  const planned = steps.map((st) => ({ unit: pool.get(st.id)!, tokens: st.tokens }));
  const key = planKey(variant.ratio, alpha, framing);
  const live =
    settings.phase2 === "live"
      ? await executeEnforcedLive(planned, budget, input.liveUnit ?? input.runUnit, key, signal)
      : null;
  const liveU =
    settings.phase2 === "live"
      ? await executeAdvisoryLive(
          planned,
          budget,
          input.advisoryUnit ?? input.liveUnit ?? input.runUnit,
          key,
          input.advisoryCap ?? settings.unitCap,
          signal,
        )
      : null;
  const resolve =
    settings.resolve && input.resolveUnit
      ? await executeEnforcedLive(planned, budget, input.resolveUnit, key, signal)
      : null;
  const scoredLive = (run: typeof live) =>
    run && {
      vE: run.value,
      etaE: finite(efficiency(run.value, s.vRandom, s.vOracle)),
      regretE: regret(run.value, s.vOracle),
      steps: run.steps,
    };
  return {
    key,
    ratio: variant.ratio,
    alpha,
    framing,
    budget,
    units: variant.units.map((u) => u.id),
    unsolvable: variant.unsolvable,
    replies: outcome.replies,
    plan: outcome.parsed
      ? {
          steps,
          dropped: outcome.parsed.dropped,
          allocated: outcome.parsed.allocated,
          compliant: outcome.parsed.compliant,
        }
      : null,
    failure: outcome.failure,
    costUsd: outcome.replies.reduce<number | null>((sum, r) => {
      const c = callCostUsd(input.pricing ?? null, { input: r.inputTokens, output: r.outputTokens });
      return sum === null || c === null ? null : sum + c;
    }, 0),
    scores: {
      vOracle: s.vOracle,
      vRandom: s.vRandom,
      vU: s.vU,
      vE: s.vE,
      etaU: finite(s.etaU),
      etaE: finite(s.etaE),
      regretU: s.regretU,
      regretE: s.regretE,
    },
    detection: outcome.parsed
      ? detection(
          variant.unsolvable,
          steps.map((st) => st.id),
        )
      : null,
    waste: outcome.parsed ? waste(steps, variant.unsolvable) : null,
    phase2: settings.phase2,
    live: scoredLive(live),
    liveU: liveU && {
      vU: liveU.value,
      etaU: finite(efficiency(liveU.value, s.vRandom, s.vOracle)),
      regretU: regret(liveU.value, s.vOracle),
      steps: liveU.steps,
    },
    resolve: scoredLive(resolve),
    configuration: settings.configuration,
    model: settings.model,
    kgateVersion: settings.kgateVersion,
    finishedAt: (input.now ?? (() => new Date()))().toISOString(),
  };
}

export async function runTriage(input: TriageRunInput): Promise<TriageRunResult> {
  const { files, settings, log } = input;
  const warn = (line: string) => log(`warning: ${line}`);
  if (settings.resolve && !input.resolveUnit) throw new Error("a re-solve run needs a re-solve runner");
  const done = new Map(readLines(files.phase0, Phase0RecordSchema, warn).map((r) => [r.id, r]));
  const plans = new Map(readLines(files.plans, PlanRecord, warn).map((p) => [p.key, p]));
  const solvable = input.units.filter((u) => !u.unsolvable);
  const supply = input.units.filter((u) => u.unsolvable);
  // before any model call: a ratio the pool cannot serve is an error, not a wasted phase 0
  const variants = injectedVariants(solvable, supply, settings.ratios, settings.seed, input.twins);
  const first = await phase0(input, done);
  const wanted = variants.flatMap((variant) => {
    const units = scored(variant, done);
    if (!units) {
      log(`r = ${variant.ratio}: phase 0 is incomplete for this pool, no plan asked (--resume retries)`);
      return [];
    }
    return settings.alphas.flatMap((alpha) =>
      settings.framings.map((framing) => ({
        key: planKey(variant.ratio, alpha, framing),
        variant,
        units,
        alpha,
        framing,
      })),
    );
  });
  const todo = first.cancelled ? [] : wanted.filter((p) => !plans.has(p.key));
  const second = await runKeyed(
    input,
    "plan",
    todo,
    runSettingDefault("retries", "triage"),
    async (p, signal) => {
      const record = await onePlan(input, p.variant, p.units, p.alpha, p.framing, signal);
      appendJsonLine(files.plans, record);
      plans.set(p.key, record);
      const sc = record.scores;
      log(`plan ${p.key}: B ${record.budget}, V_U ${sc.vU}, V_E ${sc.vE} (oracle ${sc.vOracle})`);
      return record;
    },
    () => "pass",
  );
  const failures = [...first.failures, ...second.failures];
  return {
    phase0: [...done.values()],
    plans: [...plans.values()],
    failures,
    errors: failures.length,
    internal: [...first.internal, ...second.internal],
    cancelled: first.cancelled || second.cancelled,
    refused: [...first.refused, ...second.refused],
  };
}
