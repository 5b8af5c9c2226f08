// `kgate triage --estimate` and `--max-cost`: what a triage run would cost (per phase-0 unit and for
// the plans, from earlier records of the same configuration, else at the bound), and the ceiling
// over its phase-0 units and plans.
import type { ResolvedAgentConfig } from "../agents/index.ts";
import { estimateLines, parseMaxCost } from "../cost/index.ts";
import { EXIT_OK, UsageError } from "../errors.ts";
import {
  estimateTriage,
  type LoadedTriagePool,
  Phase0Record,
  PlanRecord,
  type PoolVariant,
  readLines,
  type TriageSettings,
  triageCeiling,
  triageRunFiles,
  workBound,
} from "../triage/index.ts";
import type { CommandContext } from "./context.ts";

/** --estimate: nothing runs, no model is called, no run directory is made. */
export function printEstimate(
  ctx: CommandContext,
  o: {
    settings: TriageSettings;
    config: ResolvedAgentConfig;
    pool: LoadedTriagePool;
    variants: PoolVariant[];
    json: boolean;
  },
): number {
  const { settings } = o;
  const estimate = estimateTriage({
    runsDir: ctx.paths.runs,
    settings,
    config: o.config,
    units: o.pool.units,
    variants: o.variants,
    tasks: o.pool.tasks,
  });
  ctx.stdout.write(
    o.json
      ? `${JSON.stringify(estimate, null, 2)}\n`
      : estimateLines(estimate, "run", [
          "without earlier records a unit or plan is priced at its bound: its output cap generated, every token sent at the dearest input price",
          ...(settings.phase2 === "live" || settings.resolve
            ? ["the live phase (--live, --resolve) is not included"]
            : []),
        ]),
  );
  return EXIT_OK;
}

/** --max-cost: a ceiling over phase-0 units and plans; needs prices, and no live phase (not bounded). */
export function ceilingOf(
  ctx: CommandContext,
  text: string,
  settings: TriageSettings,
  config: ResolvedAgentConfig,
  pool: LoadedTriagePool,
) {
  const ceilingUsd = parseMaxCost(text);
  if (typeof ceilingUsd === "string") throw new UsageError(ceilingUsd);
  if (!config.pricing)
    throw new UsageError(`--max-cost needs prices: agent configuration ${config.name} has no "pricing"`);
  if (settings.phase2 === "live" || settings.resolve)
    throw new UsageError("--max-cost bounds phase 0 and the plans; it cannot bound --live or --resolve runs");
  const files = triageRunFiles(ctx.paths.runs, settings.runId);
  const warn = () => {};
  const earlier = [
    ...readLines(files.phase0, Phase0Record, warn),
    ...readLines(files.plans, PlanRecord, warn),
  ];
  return triageCeiling(ceilingUsd, earlier, (work) => workBound(work, settings, config, pool.tasks));
}
