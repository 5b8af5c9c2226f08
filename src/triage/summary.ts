// The analysis of a triage run, from its records alone: eta and regret per alpha x regime x framing
// (the paper's main table, at r = 0), detection D and waste W per injection ratio, compliance, plans.
import type { Phase0Record, PlanRecord, TriageSettings } from "./records.ts";
import { meanDefined } from "./scores.ts";

export interface MainRow {
  alpha: number;
  regime: "U" | "E";
  framing: string;
  plans: number;
  /** Mean eta over plans where it is defined; null when none is. */
  eta: number | null;
  /** Plans whose eta is undefined (V_oracle = V_random), left out of the mean. */
  etaUndefined: number;
  regret: number | null;
}

export interface InjectionRow {
  ratio: number;
  framing: string;
  plans: number;
  detection: number | null;
  waste: number | null;
}

export interface TriageSummary {
  run: string;
  pool: TriageSettings["pool"];
  configuration: TriageSettings["configuration"];
  model: string;
  kgateVersion: string;
  phase2: "simulated";
  phase0: { units: number; correct: number; capped: number; totalCost: number; costKind: string | null };
  main: MainRow[];
  injection: InjectionRow[];
  compliance: { plans: number; unreadable: number; compliant: number; share: number | null };
  plans: PlanRecord[];
}

function sorted<T>(values: Iterable<T>): T[] {
  return [...new Set(values)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

export function summariseTriage(
  settings: TriageSettings,
  phase0: Phase0Record[],
  plans: PlanRecord[],
): TriageSummary {
  const main: MainRow[] = [];
  const atZero = plans.filter((p) => p.ratio === 0);
  for (const alpha of sorted(atZero.map((p) => p.alpha)))
    for (const regime of ["U", "E"] as const)
      for (const framing of settings.framings) {
        const group = atZero.filter((p) => p.alpha === alpha && p.framing === framing);
        if (group.length === 0) continue;
        const eta = meanDefined(group.map((p) => (regime === "U" ? p.scores.etaU : p.scores.etaE)));
        const regret = meanDefined(group.map((p) => (regime === "U" ? p.scores.regretU : p.scores.regretE)));
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
  return {
    run: settings.runId,
    pool: settings.pool,
    configuration: settings.configuration,
    model: settings.model,
    kgateVersion: settings.kgateVersion,
    phase2: "simulated",
    phase0: {
      units: phase0.length,
      correct: phase0.filter((r) => r.correct).length,
      capped: phase0.filter((r) => r.capped).length,
      totalCost: phase0.reduce((s, r) => s + r.cost, 0),
      costKind: phase0[0]?.costKind ?? null,
    },
    main,
    injection,
    compliance: {
      plans: plans.length,
      unreadable: plans.length - readable.length,
      compliant,
      share: readable.length === 0 ? null : compliant / readable.length,
    },
    plans,
  };
}
