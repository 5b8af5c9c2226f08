// `kgate probe ... --estimate` and `--max-cost`: the estimate runs the probe with an admit hook that
// refuses every unit (so no trial starts and no model is called) and prices the units it was asked
// for; the ceiling reserves each unit's bound and settles it at the recorded cost.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadAgentConfigs } from "../agents/index.ts";
import {
  type BudgetState,
  budgetLine,
  type CostCeiling,
  estimateLines,
  parseMaxCost,
} from "../cost/index.ts";
import { EXIT_OK, UsageError } from "../errors.ts";
import {
  estimateProbe,
  type ProbeAdmit,
  type ProbeAgent,
  type ProbeAttempt,
  type ProbeWork,
  probeCeiling,
  probeRunCosts,
} from "../probes/index.ts";
import type { LoadedTask } from "../task/index.ts";
import type { CommandContext } from "./context.ts";

/** The configurations by name with a model that refuses to be called: an estimate calls none. */
export function estimateAgents(ctx: CommandContext, names: readonly string[]): ProbeAgent[] {
  const loaded = loadAgentConfigs(ctx.paths);
  return names.map((name) => {
    const config = loaded.agents.find((a) => a.name === name);
    if (!config)
      throw new UsageError(`a probe asks a model: "${name}" is not a configuration in ${loaded.file}`);
    const model = {
      complete: async () => {
        throw new Error("an estimate calls no model");
      },
    } as unknown as ProbeAgent["model"];
    return { config, model };
  });
}

/** What a probe run spends under: an estimate's collector, a ceiling, or nothing. */
export interface ProbeCost {
  admit?: ProbeAdmit;
  /** --estimate: the units the probe asked for, and the scratch folder it ran in (removed by `estimate`). */
  works?: ProbeWork[];
  scratch?: string;
  ceiling?: CostCeiling<ProbeWork, ProbeAttempt>;
}

/** --estimate: a scratch run folder outside runs/ and an admit hook that records and refuses every unit. */
export function estimateRun(): ProbeCost & { runDir: string } {
  const scratch = mkdtempSync(path.join(os.tmpdir(), "kgate-probe-estimate-"));
  const works: ProbeWork[] = [];
  return {
    works,
    scratch,
    runDir: scratch,
    admit: (work) => {
      works.push(work);
      return { ok: false, reason: "an estimate starts nothing" };
    },
  };
}

/** --max-cost: every configuration priced; spent counts what the run's folder already holds. */
export function ceilingRun(text: string, agents: readonly ProbeAgent[], runDir: string): ProbeCost {
  const ceilingUsd = parseMaxCost(text);
  if (typeof ceilingUsd === "string") throw new UsageError(ceilingUsd);
  const unpriced = agents.filter((a) => !a.config.pricing).map((a) => a.config.name);
  if (unpriced.length > 0)
    throw new UsageError(
      `--max-cost needs prices: agent configuration(s) ${unpriced.join(", ")} have no "pricing"`,
    );
  const ceiling = probeCeiling(ceilingUsd, probeRunCosts(runDir));
  return { ceiling, admit: ceiling.admit };
}

/** Prints the estimate of the units the probe asked for and removes the scratch folder. */
export function printEstimate(
  ctx: CommandContext,
  probe: string,
  task: LoadedTask,
  cost: ProbeCost,
  json: boolean | undefined,
): number {
  rmSync(cost.scratch!, { recursive: true, force: true });
  const estimate = estimateProbe({ runsDir: ctx.paths.runs, probe, task, works: cost.works! });
  ctx.stdout.write(
    json
      ? `${JSON.stringify(estimate, null, 2)}\n`
      : estimateLines(estimate, "trial", [
          "without earlier records a trial is priced at its bound: the output cap on every turn, every token sent at the dearest input price",
        ]),
  );
  return EXIT_OK;
}

/** The budget line of a probe run under --max-cost. */
export const probeBudgetLine = (state: BudgetState, resume: string) =>
  budgetLine(state, { unit: "probe trial", shortfall: "they were not run and have no result", resume });
