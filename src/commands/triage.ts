// `kgate triage`: portfolio triage under a token budget (TRIAGE) on item pools or gated tasks
// (sandboxed or inline), and
// `kgate triage score`, which re-scores a saved plan offline against phase-0 results.
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import {
  createConfiguredChatModel,
  loadAgentConfigs,
  type ResolvedAgentConfig,
  resolveAgent,
} from "../agents/index.ts";
import { EXIT_FAILED, EXIT_OK, InternalTrialErrors, UsageError, usageOrBug } from "../errors.ts";
import { packageInfo } from "../package-info.ts";
import { relativeToProject } from "../project.ts";
import { InterruptedError, removeOnInterrupt } from "../sandbox/index.ts";
import {
  canStateBudget,
  Framing,
  injectedVariants,
  inlineUnitRunner,
  type LoadedTriagePool,
  loadTriagePool,
  markdownTriage,
  namesTasks,
  readSettings,
  resolveItemRunner,
  runItemUnit,
  runTaskUnit,
  runTriage,
  summariseTriage,
  svgTriage,
  type TaskLiveContext,
  type TriageSettings,
  taskLiveRunner,
  triageRunFiles,
  type UnitRunner,
  writeSettings,
} from "../triage/index.ts";
import { agentInfoOf, newRunId, openSandboxRunner, runDirOf, TrialEngine } from "../trial/index.ts";
import type { CommandContext } from "./context.ts";
import { integerOption } from "./options.ts";
import { pingFirst } from "./ping-first.ts";
import { ceilingOf, printEstimate } from "./triage-cost.ts";

export { score } from "./triage-score.ts";

export interface TriageOptions {
  agent?: string;
  alpha?: string[];
  framing?: string[];
  inject?: string[];
  seed?: string;
  unitCap?: string;
  planTokens?: string;
  runId?: string;
  resume?: string;
  live?: boolean;
  resolve?: boolean;
  /** Parsed at the CLI edge (src/cli/settings.ts). */
  concurrency: number;
  json?: boolean;
  /** --estimate: print what the run would cost and exit (no unit, no model call, no run directory). */
  estimate?: boolean;
  /** --max-cost <usd>: the run's cost ceiling over phase-0 units and plans (a resume may raise it). */
  maxCost?: string;
  /** false (--no-ping): no endpoint ping before the first unit. */
  ping?: boolean;
}

/** Values of a repeatable, comma-separated option, each a number in [lo, hi]. */
function numbers(
  flag: string,
  raw: string[] | undefined,
  fallback: number[],
  lo: number,
  hi: number,
): number[] {
  if (!raw) return fallback;
  const values = raw.flatMap((r) => r.split(",")).map((v) => v.trim());
  for (const v of values) {
    const n = Number(v);
    if (v === "" || !Number.isFinite(n) || n < lo || n > hi)
      throw new UsageError(`${flag} takes numbers in [${lo}, ${hi}] (got "${v}")`);
  }
  return [...new Set(values.map(Number))];
}

/** An integer option >= min, or `fallback` when it is not given. */
const integerOr = (flag: string, raw: string | undefined, min: number, fallback: number) =>
  raw === undefined ? fallback : integerOption(flag, raw, { min });

function findConfiguration(ctx: CommandContext, name: string): ResolvedAgentConfig {
  const loaded = loadAgentConfigs(ctx.paths);
  if (loaded.errors.length > 0)
    throw new UsageError(
      `${loaded.file} is invalid: ${loaded.errors.map((e) => `${e.field}: ${e.message}`).join("; ")}`,
    );
  const config = loaded.agents.find((a) => a.name === name);
  if (!config)
    throw new UsageError(
      `unknown agent configuration "${name}" for triage (it needs a model: known ${loaded.agents.map((a) => a.name).join(", ") || "none"})`,
    );
  return config;
}

function newSettings(
  pool: TriageSettings["pool"],
  config: ResolvedAgentConfig,
  o: TriageOptions,
): TriageSettings {
  const framings = (o.framing ?? ["neutral", "agent", "exam"]).flatMap((f) => f.split(","));
  for (const f of framings)
    if (!Framing.safeParse(f).success)
      throw new UsageError(`--framing takes neutral, agent or exam (got "${f}")`);
  return {
    runId: o.runId ?? newRunId(),
    pool,
    configuration: { name: config.name, digest: config.digest },
    model: config.model,
    alphas: numbers("--alpha", o.alpha, [0.25, 0.5, 0.75, 1.0], Number.MIN_VALUE, 1),
    framings: [...new Set(framings)] as TriageSettings["framings"],
    ratios: numbers("--inject", o.inject, [0], 0, 1),
    seed: integerOr("--seed", o.seed, 0, 0),
    unitCap: integerOr("--unit-cap", o.unitCap, 1, 16_384),
    planTokens: integerOr("--plan-tokens", o.planTokens, 1, 4096),
    permutations: 1000,
    phase2: o.live ? "live" : "simulated",
    resolve: o.resolve === true,
    kgateVersion: packageInfo().version,
    createdAt: new Date().toISOString(),
  };
}

/** The settings of a new run, or of the run to resume (refusing a changed configuration or pool). */
function settingsAndPool(
  ctx: CommandContext,
  poolArg: string | undefined,
  config: ResolvedAgentConfig,
  o: TriageOptions,
): { settings: TriageSettings; pool: LoadedTriagePool } {
  try {
    if (!o.resume) {
      if (!poolArg)
        throw new UsageError(
          "kgate triage needs a pool: items/<pool>.jsonl, a .jsonl path, tasks:<id>,<id> or inline:<id>,<id>",
        );
      const pool = loadTriagePool(ctx.paths, poolArg);
      return { settings: newSettings(pool.info, config, o), pool };
    }
    const settings = readSettings(triageRunFiles(ctx.paths.runs, o.resume));
    if (settings.configuration.name !== config.name || settings.configuration.digest !== config.digest)
      throw new UsageError(
        `run ${o.resume} was made with configuration ${settings.configuration.name} (${settings.configuration.digest.slice(0, 12)}), not ${config.name} (${config.digest.slice(0, 12)})`,
      );
    const spec = namesTasks(settings.pool.name) ? settings.pool.name : settings.pool.file;
    const pool = loadTriagePool(ctx.paths, spec);
    if (pool.info.digest !== settings.pool.digest)
      throw new UsageError(
        `${settings.pool.name} changed since run ${settings.runId} began: start a new run`,
      );
    return { settings, pool };
  } catch (err) {
    throw usageOrBug(err);
  }
}

/**
 * Gated-task units' trials: one sandbox runner and one trial engine for the triage session, phase 0's
 * trials (the configuration's agent) and the live steps' (each limit's agent, added once) alike.
 */
async function taskRunner(
  ctx: CommandContext,
  pool: LoadedTriagePool,
  config: ResolvedAgentConfig,
  runId: string,
  log: (l: string) => void,
  engine: { concurrency: number; signal: AbortSignal },
): Promise<{ runUnit: UnitRunner; live: TaskLiveContext; close(): Promise<void> }> {
  const agent = await resolveAgent(ctx.paths, config.name, { log: (l) => log(`${config.name}: ${l}`) });
  const sandbox = await openSandboxRunner({ paths: ctx.paths, agents: [agent], log });
  const runDir = runDirOf(ctx.paths, runId);
  const trials = new TrialEngine({ runId, runDir, runner: sandbox.runner, ...engine });
  const tasks = pool.tasks!;
  const trialCtx = { paths: ctx.paths, tasks, agent: agentInfoOf(agent), engine: trials, runDir };
  return {
    runUnit: (unit) => runTaskUnit(trialCtx, unit),
    live: { paths: ctx.paths, tasks, config, runId, runDir, log, sandbox, engine: trials },
    close: sandbox.close,
  };
}

export async function run(
  ctx: CommandContext,
  poolArg: string | undefined,
  o: TriageOptions,
): Promise<number> {
  if (!o.agent)
    throw new UsageError("kgate triage needs --agent <name> (a configuration in kgate.config.json)");
  const config = findConfiguration(ctx, o.agent);
  const { settings, pool } = settingsAndPool(ctx, poolArg, config, o);
  const files = triageRunFiles(ctx.paths.runs, settings.runId);
  // sandboxed task units state the re-solve's budget in the agent's system prompt; inline ones in the prompt
  if (settings.resolve && pool.tasks && !pool.inline && !canStateBudget(config))
    throw new UsageError(
      `--resolve on gated tasks states the budget in the agent's system prompt, which harness ${config.harness} keeps as its own`,
    );
  let variants: ReturnType<typeof injectedVariants>;
  try {
    // refuse a ratio the pool cannot serve before the run's folder is made
    const solvable = pool.units.filter((u) => !u.unsolvable);
    const supply = pool.units.filter((u) => u.unsolvable);
    variants = injectedVariants(solvable, supply, settings.ratios, settings.seed, pool.twins);
  } catch (err) {
    throw usageOrBug(err);
  }
  if (o.estimate) {
    if (o.resume) throw new UsageError("--estimate prices a new run's plan; it takes no --resume");
    return printEstimate(ctx, { settings, config, pool, variants, json: o.json === true });
  }
  const ceiling = o.maxCost === undefined ? null : ceilingOf(ctx, o.maxCost, settings, config, pool);
  await pingFirst(ctx, [config.name], o.ping, [...(pool.tasks?.keys() ?? [])]);
  if (!o.resume) {
    if (existsSync(files.settings))
      throw new UsageError(`run ${settings.runId} exists: use --resume ${settings.runId}`);
    writeSettings(files, settings);
  }
  const model = await createConfiguredChatModel(config).catch((err: unknown) => {
    throw usageOrBug(err);
  });
  const temperature = config.temperature ?? 0;
  const log = (line: string) => ctx.stderr.write(`${line}\n`);
  const { concurrency } = o;
  // Ctrl-C: no unit or plan starts after it, running ones end as cancelled (a resume runs them)
  const controller = new AbortController();
  const stopListening = removeOnInterrupt(ctx.paths, settings.runId, controller, log);
  const engine = { concurrency, signal: controller.signal };
  const tasks =
    pool.tasks && !pool.inline
      ? await taskRunner(ctx, pool, config, settings.runId, log, engine).catch((err) => {
          stopListening();
          throw usageOrBug(err);
        })
      : null;
  const retry = config.retry;
  const inline =
    pool.tasks && pool.inline ? { paths: ctx.paths, tasks: pool.tasks, model, temperature, retry } : null;
  const runUnit: UnitRunner =
    tasks?.runUnit ??
    (inline && inlineUnitRunner(inline)) ??
    (async (unit, cap, _at, signal) => {
      if (unit.source.kind !== "item") throw new Error(`unit ${unit.id} is not an item`);
      return runItemUnit(model, unit.source.item, { maxOutputTokens: cap, temperature, retry, signal });
    });
  const live = tasks?.live;
  const result = await runTriage({
    files,
    settings,
    units: pool.units,
    twins: pool.twins,
    planner: model,
    retry,
    log,
    runUnit,
    concurrency,
    provider: config.provider,
    signal: controller.signal,
    pricing: config.pricing,
    admit: ceiling?.admit,
    liveUnit: live ? taskLiveRunner(live, "live") : runUnit,
    // regime U live runs each unit as phase 0 did: an item at --unit-cap, a task at its own budget
    advisoryUnit: live ? taskLiveRunner(live, "live-u") : runUnit,
    advisoryCap: live ? (config.outputTokenBudget ?? Number.POSITIVE_INFINITY) : settings.unitCap,
    resolveUnit: live
      ? taskLiveRunner(live, "resolve")
      : inline
        ? inlineUnitRunner(inline, true)
        : resolveItemRunner(model, temperature, retry),
  })
    .catch((err: unknown) => {
      throw usageOrBug(err);
    })
    .finally(async () => {
      stopListening();
      await tasks?.close();
    });
  const summary = {
    ...summariseTriage(settings, result.phase0, result.plans, result.failures),
    budget: ceiling?.state ?? null,
  };
  writeFileSync(path.join(files.dir, "report.md"), markdownTriage(summary));
  writeFileSync(path.join(files.dir, "report.json"), `${JSON.stringify(summary, null, 2)}\n`);
  writeFileSync(path.join(files.dir, "report.svg"), svgTriage(summary));
  log(`wrote ${relativeToProject(ctx.paths, files.dir)}/report.md, report.json, report.svg`);
  ctx.stdout.write(o.json ? `${JSON.stringify(summary, null, 2)}\n` : markdownTriage(summary));
  if (result.internal.length > 0)
    throw new InternalTrialErrors(result.internal.map((e) => ({ trialId: e.key, error: e.error ?? null })));
  const interrupted = controller.signal.reason;
  if (result.cancelled && interrupted instanceof InterruptedError) {
    log(`interrupted: resume with  kgate triage --agent ${config.name} --resume ${settings.runId}`);
    return interrupted.exitCode;
  }
  if (result.refused.length > 0) {
    log(
      `cost ceiling: ${result.refused.length} unit(s) or plan(s) not started: kgate triage --agent ${config.name} --resume ${settings.runId} --max-cost <more>`,
    );
    return EXIT_FAILED;
  }
  if (result.errors > 0) {
    log(
      `${result.errors} unit(s) or plan(s) failed: kgate triage --agent ${config.name} --resume ${settings.runId}`,
    );
    return EXIT_FAILED;
  }
  return EXIT_OK;
}
