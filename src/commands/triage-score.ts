// `kgate triage score`: re-scores a saved plan offline against phase-0 results (knapsack oracle,
// random baseline, V / eta / regret under regimes U and E).
import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { EXIT_OK, UsageError, usageOrBug } from "../errors.ts";
import { relativeToProject } from "../project.ts";
import {
  loadPhase0,
  MAX_PLAN_CHARS,
  type PlanScore,
  parsePlan,
  readSettings,
  scorePlan,
  type TriageSettings,
  triageRunFiles,
} from "../triage/index.ts";
import type { CommandContext } from "./context.ts";
import { integerOption } from "./options.ts";

export interface ScoreOptions {
  phase0: string;
  plan: string;
  budget: string;
  seed?: string;
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

function baselineText(b: PlanScore["baseline"], seedFrom: string): string {
  return b.method === "exact"
    ? `exact, all ${b.orders} orders`
    : `sampled, ${b.orders} permutations, seed ${b.seed} (${seedFrom})`;
}

function table(s: PlanScore, budget: number, seedFrom: string): string {
  return [
    `budget B = ${budget}; plan ${s.compliant ? "within" : "OVER"} budget`,
    `V_oracle ${s.vOracle}   V_random ${s.vRandom.toFixed(4)} (${baselineText(s.baseline, seedFrom)})`,
    `regime U: V ${s.vU}   eta ${fixed(s.etaU)}   regret ${s.regretU.toFixed(4)}`,
    `regime E: V ${s.vE}   eta ${fixed(s.etaE)}   regret ${s.regretE.toFixed(4)}`,
    "",
  ].join("\n");
}

export async function score(ctx: CommandContext, options: ScoreOptions): Promise<number> {
  const budget = integerOption("--budget", options.budget, { min: 0 });
  const phase0File = path.resolve(options.phase0);
  const planFile = path.resolve(options.plan);
  let units: ReturnType<typeof loadPhase0>;
  try {
    units = loadPhase0(phase0File);
  } catch (err) {
    throw usageOrBug(err);
  }
  const byId = new Map(units.map((u) => [u.id, u]));
  const parsed = parsePlan(readPlanText(planFile), new Set(byId.keys()), budget);
  if (!parsed.ok) throw new UsageError(`${planFile}: ${parsed.reason}`);
  for (const d of parsed.dropped)
    ctx.stderr.write(
      `${planFile}: plan[${d.index}]${d.id === null ? "" : ` ("${d.id}")`}: ${d.reason}, dropped\n`,
    );
  const steps = parsed.steps.map((s) => ({ unit: byId.get(s.id)!, tokens: s.tokens }));
  const sampler = samplerOf(ctx, phase0File, options.seed);
  const result = scorePlan(units, steps, budget, sampler);
  if (result.baseline.method === "sampled")
    ctx.stderr.write(`V_random: ${baselineText(result.baseline, sampler.from)}\n`);
  const { vOracle, vRandom, vU, vE, etaU, etaE, regretU, regretE, compliant } = result;
  const keys = { vOracle, vRandom, vU, vE, etaU, etaE, regretU, regretE, compliant };
  ctx.stdout.write(options.json ? `${JSON.stringify(keys, null, 2)}\n` : table(result, budget, sampler.from));
  return EXIT_OK;
}

/**
 * The random baseline's sampler for a re-score: the seed and number of permutations of the run whose
 * phase0.jsonl this is (its triage.json beside it), `--seed` overriding the seed; else seed 0 and
 * 1,000 permutations. `from` says where the seed came from.
 */
function samplerOf(
  ctx: CommandContext,
  phase0File: string,
  seedOption: string | undefined,
): { seed: number; permutations: number; from: string } {
  const runDir = path.dirname(phase0File);
  const files = triageRunFiles(path.dirname(runDir), path.basename(runDir));
  let run: Pick<TriageSettings, "seed" | "permutations"> | null = null;
  if (existsSync(files.settings)) {
    try {
      run = readSettings(files);
    } catch (err) {
      throw usageOrBug(err);
    }
  }
  const shown = relativeToProject(ctx.paths, files.settings);
  const permutations = run?.permutations ?? 1000;
  if (seedOption !== undefined)
    return { seed: integerOption("--seed", seedOption, { min: 0 }), permutations, from: "--seed" };
  if (run) return { seed: run.seed, permutations, from: shown };
  return { seed: 0, permutations, from: "the default" };
}
