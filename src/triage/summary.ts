// The analysis of a triage run, from its records alone: eta and regret per alpha x regime x framing
// (the paper's main table, at r = 0), detection D and waste W per injection ratio, compliance, plans.
import { z } from "zod";
import { BudgetState } from "../cost/index.ts";
import { errorsByKind, FailureKind } from "../record/index.ts";
import { NOT_RUN } from "./live-advisory.ts";
import { type ErrorRecord, type Phase0Record, PlanRecord, TriageSettings } from "./records.ts";
import { meanDefined } from "./scores.ts";

export const MainRow = z.object({
  alpha: z.number(),
  /** `U-live`, `E-live`: regimes U and E run live (`--live`); `E-resolve`: the budget re-solve (`--resolve`). */
  regime: z.enum(["U", "E", "U-live", "E-live", "E-resolve"]),
  framing: z.string(),
  plans: z.number().int(),
  /** Mean eta over plans where it is defined; null when none is. */
  eta: z.number().nullable(),
  /** Plans whose eta is undefined (V_oracle = V_random), left out of the mean. */
  etaUndefined: z.number().int(),
  regret: z.number().nullable(),
});
export type MainRow = z.infer<typeof MainRow>;

export const InjectionRow = z.object({
  ratio: z.number(),
  framing: z.string(),
  plans: z.number().int(),
  detection: z.number().nullable(),
  waste: z.number().nullable(),
});
export type InjectionRow = z.infer<typeof InjectionRow>;

export const TriageSummary = z.object({
  run: z.string(),
  pool: TriageSettings.shape.pool,
  configuration: TriageSettings.shape.configuration,
  model: z.string(),
  kgateVersion: z.string(),
  phase2: z.enum(["simulated", "live"]),
  resolve: z.boolean(),
  phase0: z.object({
    units: z.number().int(),
    correct: z.number().int(),
    capped: z.number().int(),
    totalCost: z.number(),
    costKind: z.string().nullable(),
  }),
  /** Units and plans that failed in the last session, by their error's kind (the closed taxonomy). */
  errors: z.partialRecord(FailureKind, z.number().int()).default({}),
  main: z.array(MainRow),
  injection: z.array(InjectionRow),
  compliance: z.object({
    plans: z.number().int(),
    unreadable: z.number().int(),
    compliant: z.number().int(),
    share: z.number().nullable(),
    /** Live E: units run, and those that finished within their allocation. */
    liveRan: z.number().int(),
    liveWithin: z.number().int(),
    /** Live U: units run (a unit not run because B was spent is not counted), and plans cut at B. */
    liveURan: z.number().int(),
    liveUTruncated: z.number().int(),
    /** Re-solve: units run with their allocation stated, those that finished within it, and the share. */
    resolveRan: z.number().int(),
    resolveWithin: z.number().int(),
    resolveShare: z.number().nullable(),
  }),
  plans: z.array(PlanRecord),
  /** --max-cost: the ceiling, what was spent and reserved, and the units and plans it refused (they have no result). */
  budget: BudgetState.nullable().optional(),
});
export type TriageSummary = z.infer<typeof TriageSummary>;

function sorted<T>(values: Iterable<T>): T[] {
  return [...new Set(values)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

export function summariseTriage(
  settings: TriageSettings,
  phase0: Phase0Record[],
  plans: PlanRecord[],
  failures: readonly ErrorRecord[] = [],
): TriageSummary {
  const main: MainRow[] = [];
  const atZero = plans.filter((p) => p.ratio === 0);
  const regimes: MainRow["regime"][] = [
    "U",
    "E",
    ...(settings.phase2 === "live" ? (["U-live", "E-live"] as const) : []),
    ...(settings.resolve ? (["E-resolve"] as const) : []),
  ];
  const pick = (p: PlanRecord, regime: MainRow["regime"]) => {
    if (regime === "U") return { eta: p.scores.etaU, regret: p.scores.regretU };
    if (regime === "E") return { eta: p.scores.etaE, regret: p.scores.regretE };
    if (regime === "U-live") return { eta: p.liveU?.etaU ?? null, regret: p.liveU?.regretU ?? null };
    const run = regime === "E-live" ? p.live : p.resolve;
    return { eta: run?.etaE ?? null, regret: run?.regretE ?? null };
  };
  for (const alpha of sorted(atZero.map((p) => p.alpha)))
    for (const regime of regimes)
      for (const framing of settings.framings) {
        const group = atZero.filter((p) => p.alpha === alpha && p.framing === framing);
        if (group.length === 0) continue;
        const eta = meanDefined(group.map((p) => pick(p, regime).eta));
        const regret = meanDefined(group.map((p) => pick(p, regime).regret));
        main.push({
          alpha,
          regime,
          framing,
          plans: group.length,
          eta: eta.mean,
          etaUndefined: eta.excluded,
          regret: regret.mean,
        });
      }
  const injection: InjectionRow[] = [];
  for (const ratio of sorted(plans.map((p) => p.ratio)))
    for (const framing of settings.framings) {
      const group = plans.filter((p) => p.ratio === ratio && p.framing === framing);
      if (group.length === 0) continue;
      injection.push({
        ratio,
        framing,
        plans: group.length,
        detection: meanDefined(group.map((p) => p.detection)).mean,
        waste: meanDefined(group.map((p) => p.waste)).mean,
      });
    }
  const readable = plans.filter((p) => p.plan !== null);
  const compliant = readable.filter((p) => p.plan!.compliant).length;
  const liveSteps = plans.flatMap((p) => p.live?.steps ?? []);
  const liveUSteps = plans.flatMap((p) => p.liveU?.steps ?? []);
  const resolveSteps = plans.flatMap((p) => p.resolve?.steps ?? []);
  const resolveWithin = resolveSteps.filter((st) => st.within).length;
  return {
    run: settings.runId,
    pool: settings.pool,
    configuration: settings.configuration,
    model: settings.model,
    kgateVersion: settings.kgateVersion,
    phase2: settings.phase2,
    resolve: settings.resolve,
    phase0: {
      units: phase0.length,
      correct: phase0.filter((r) => r.correct).length,
      capped: phase0.filter((r) => r.capped).length,
      totalCost: phase0.reduce((s, r) => s + r.cost, 0),
      costKind: phase0[0]?.costKind ?? null,
    },
    errors: errorsByKind(failures.map((f) => f.error ?? null)),
    main,
    injection,
    compliance: {
      plans: plans.length,
      unreadable: plans.length - readable.length,
      compliant,
      share: readable.length === 0 ? null : compliant / readable.length,
      liveRan: liveSteps.length,
      liveWithin: liveSteps.filter((st) => st.within).length,
      liveURan: liveUSteps.filter((st) => st.stopReason !== NOT_RUN).length,
      liveUTruncated: liveUSteps.filter((st) => st.truncated).length,
      resolveRan: resolveSteps.length,
      resolveWithin,
      resolveShare: resolveSteps.length === 0 ? null : resolveWithin / resolveSteps.length,
    },
    plans,
    budget: null,
  };
}
