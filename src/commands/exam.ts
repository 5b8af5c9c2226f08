// `kgate exam <pool> --agent <name> --n 5,10,20 --scheme ... --order ... --prompt ... --budget B`:
// exams of N units under one shared token budget; one record per exam, a report; resumable.
import { readFileSync } from "node:fs";
import path from "node:path";
import { loadAgentConfigs, loadChatModel, type ResolvedAgentConfig, resolveApiKey } from "../agents/index.ts";
import { EXIT_FAILED, EXIT_OK, UsageError } from "../errors.ts";
import {
  DEFAULT_TAU,
  ExamPrompt,
  type ExamRunFile,
  formatExamSummary,
  loadReference,
  Ordering,
  PointScheme,
  type PoolUnit,
  REPORT_FILES,
  readExamRunFile,
  runExamSession,
  runItemExam,
  type SessionInputs,
} from "../exam/index.ts";
import { relativeToProject } from "../project.ts";
import { formatProblem, loadItemPool, sha256 } from "../task/index.ts";
import { newRunId, runDirOf } from "../trial/index.ts";
import type { CommandContext } from "./context.ts";
import { packageInfo } from "./package-info.ts";

export interface ExamOptions {
  agent?: string;
  n: string;
  exams: string;
  scheme: string;
  order: string;
  prompt: string;
  budget?: string;
  tau?: string;
  seed: string;
  reference?: string;
  runId?: string;
  resume?: string;
  json?: boolean;
}

function integer(option: string, text: string, min: number): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < min)
    throw new UsageError(`${option} must be an integer >= ${min}, got "${text}"`);
  return value;
}

function list<T>(option: string, text: string, parse: (item: string) => T): T[] {
  const items = text
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  if (items.length === 0) throw new UsageError(`${option} needs at least one value`);
  return [...new Set(items)].map(parse);
}

function oneOf<T extends string>(option: string, schema: { options: readonly T[] }) {
  return (item: string): T => {
    if (!(schema.options as readonly string[]).includes(item))
      throw new UsageError(`${option}: "${item}" is not one of ${schema.options.join(", ")}`);
    return item as T;
  };
}

function agentConfig(ctx: CommandContext, name: string): ResolvedAgentConfig {
  const loaded = loadAgentConfigs(ctx.paths);
  if (loaded.errors.length > 0)
    throw new UsageError(`${loaded.file} is invalid: ${formatProblem(loaded.errors[0]!)}`);
  const config = loaded.agents.find((a) => a.name === name);
  if (!config)
    throw new UsageError(
      `unknown agent "${name}" for an exam (configured: ${loaded.agents.map((a) => a.name).join(", ") || "none"})`,
    );
  return config;
}

/** A new run's plan from the options, or a resumed run's plan from its exam.json. */
function runPlan(
  ctx: CommandContext,
  pool: string | undefined,
  o: ExamOptions,
): { run: ExamRunFile; resume: boolean } {
  if (o.resume) return { run: readExamRunFile(runDirOf(ctx.paths, o.resume)), resume: true };
  if (!pool)
    throw new UsageError("name an item pool (items/<pool>.jsonl or a .jsonl path), or --resume a run");
  if (!o.agent) throw new UsageError("--agent is required");
  if (!o.budget) throw new UsageError("--budget is required (B, the shared token budget of one exam)");
  const reference = o.reference ? loadReference(path.resolve(ctx.paths.root, o.reference)) : null;
  return {
    resume: false,
    run: {
      version: 1,
      runId: o.runId ?? newRunId(),
      kind: "items",
      pool: { name: path.basename(pool, ".jsonl"), source: pool, digest: "" },
      agent: { name: o.agent, digest: "" },
      budget: integer("--budget", o.budget, 1),
      tau: o.tau === undefined ? DEFAULT_TAU : Number(o.tau),
      factors: {
        seed: integer("--seed", o.seed, 0),
        sizes: list("--n", o.n, (s) => integer("--n", s, 1)),
        examsPerSize: integer("--exams", o.exams, 1),
        schemes: list("--scheme", o.scheme, oneOf("--scheme", PointScheme)),
        orders: list("--order", o.order, oneOf("--order", Ordering)),
        prompts: list("--prompt", o.prompt, oneOf("--prompt", ExamPrompt)),
      },
      reference: reference
        ? { file: relativeToProject(ctx.paths, reference.file), digest: reference.digest }
        : null,
      createdAt: new Date().toISOString(),
    },
  };
}

export async function run(ctx: CommandContext, poolArg: string | undefined, o: ExamOptions): Promise<number> {
  const log = (line: string) => ctx.stderr.write(`${line}\n`);
  let inputs: SessionInputs;
  let resume: boolean;
  try {
    const plan = runPlan(ctx, poolArg, o);
    resume = plan.resume;
    const run = plan.run;
    if (!Number.isFinite(run.tau) || run.tau < 0)
      throw new UsageError(`--tau must be a number >= 0, got "${o.tau}"`);
    const pool = loadItemPool(ctx.paths.root, run.pool.source);
    const reference = run.reference ? loadReference(path.resolve(ctx.paths.root, run.reference.file)) : null;
    const config = agentConfig(ctx, run.agent.name);
    const key = resolveApiKey(config);
    if (key === undefined)
      throw new UsageError(
        `agent "${config.name}" needs the environment variable ${config.apiKeyEnv} (its API key)`,
      );
    const current: ExamRunFile = {
      ...run,
      pool: { ...run.pool, digest: sha256(readFileSync(pool.file)) },
      agent: { name: config.name, digest: config.digest },
      reference: reference ? { file: run.reference!.file, digest: reference.digest } : null,
    };
    const units: PoolUnit[] = pool.items.map((item) => {
      const measured = reference?.entries.get(item.id);
      return { id: item.id, difficulty: item.difficulty ?? (measured ? 1 - measured.accuracy : null) };
    });
    const items = new Map(pool.items.map((item) => [item.id, item]));
    const model = await loadChatModel(config, key);
    inputs = {
      runDir: runDirOf(ctx.paths, run.runId),
      // a new run records what it was started with; a resumed one is compared with it
      run: resume ? { ...current, createdAt: run.createdAt } : current,
      agent: { name: config.name, digest: config.digest, harness: "exam-items", model: config.model },
      kgateVersion: packageInfo().version,
      units,
      reference: reference?.entries ?? null,
      runOne: (spec) =>
        runItemExam(spec, items, {
          model,
          pricing: config.pricing,
          budget: run.budget,
          temperature: config.temperature,
        }),
      log,
    };
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError((err as Error).message);
  }
  let result: Awaited<ReturnType<typeof runExamSession>>;
  try {
    result = await runExamSession(inputs, resume);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  for (const problem of result.problems) log(`warning: ${problem}`);
  const { summary } = result;
  if (o.json) ctx.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  else {
    ctx.stdout.write(formatExamSummary(summary));
    const dir = relativeToProject(ctx.paths, inputs.runDir);
    ctx.stdout.write(
      `\nrecords ${dir}/exams.jsonl; report ${dir}/${REPORT_FILES.text}, ${dir}/${REPORT_FILES.chart}\n`,
    );
  }
  return summary.failed > 0 || summary.finished < summary.planned ? EXIT_FAILED : EXIT_OK;
}
