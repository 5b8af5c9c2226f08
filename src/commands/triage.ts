// `kgate triage`: portfolio triage under a token budget (TRIAGE) on item pools, and
// `kgate triage score`, which re-scores a saved plan offline against phase-0 results.
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { EXIT_OK, UsageError } from "../errors.ts";
import { loadPhase0, MAX_PLAN_CHARS, type PlanScore, parsePlan, scorePlan } from "../triage/index.ts";
import type { CommandContext } from "./context.ts";

export interface ScoreOptions {
  phase0: string;
  plan: string;
  budget: string;
  json?: boolean;
}

function readPlanText(file: string): string {
  try {
    if (statSync(file).size > MAX_PLAN_CHARS) throw new UsageError(`${file}: over ${MAX_PLAN_CHARS} bytes`);
    return readFileSync(file, "utf8");
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`${file}: cannot read: ${(err as Error).message}`);
  }
}

const fixed = (v: number) => (Number.isNaN(v) ? "undefined (V_oracle = V_random)" : v.toFixed(4));

function table(s: PlanScore, budget: number): string {
  return [
    `budget B = ${budget}; plan ${s.compliant ? "within" : "OVER"} budget`,
    `V_oracle ${s.vOracle}   V_random ${s.vRandom.toFixed(4)}`,
    `regime U: V ${s.vU}   eta ${fixed(s.etaU)}   regret ${s.regretU.toFixed(4)}`,
    `regime E: V ${s.vE}   eta ${fixed(s.etaE)}   regret ${s.regretE.toFixed(4)}`,
    "",
  ].join("\n");
}

export async function score(ctx: CommandContext, options: ScoreOptions): Promise<number> {
  const budget = Number(options.budget);
  if (!/^\d+$/.test(options.budget) || !Number.isSafeInteger(budget))
    throw new UsageError(
      `--budget must be a non-negative integer number of tokens (got "${options.budget}")`,
    );
  const phase0File = path.resolve(options.phase0);
  const planFile = path.resolve(options.plan);
  let units: ReturnType<typeof loadPhase0>;
  try {
    units = loadPhase0(phase0File);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const byId = new Map(units.map((u) => [u.id, u]));
  const parsed = parsePlan(readPlanText(planFile), new Set(byId.keys()), budget);
  if (!parsed.ok) throw new UsageError(`${planFile}: ${parsed.reason}`);
  for (const d of parsed.dropped)
    ctx.stderr.write(
      `${planFile}: plan[${d.index}]${d.id === null ? "" : ` ("${d.id}")`}: ${d.reason}, dropped\n`,
    );
  const steps = parsed.steps.map((s) => ({ unit: byId.get(s.id)!, tokens: s.tokens }));
  const result = scorePlan(units, steps, budget);
  const { vOracle, vRandom, vU, vE, etaU, etaE, regretU, regretE, compliant } = result;
  const keys = { vOracle, vRandom, vU, vE, etaU, etaE, regretU, regretE, compliant };
  ctx.stdout.write(options.json ? `${JSON.stringify(keys, null, 2)}\n` : table(result, budget));
  return EXIT_OK;
}
