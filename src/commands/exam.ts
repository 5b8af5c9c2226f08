// `kgate exam <pool> --agent <name> --n 5,10,20 --scheme ... --order ... --prompt ... --budget B`
// (or `--tasks <ids>` for a task exam, `--inline-tasks <ids>` for an exam of inline tasks): exams of N units under one shared token budget; one record
// per exam, a report; resumable.
import path from "node:path";
import { estimateLines, parseMaxCost } from "../cost/index.ts";
import { EXIT_FAILED, EXIT_OK, InternalTrialErrors, UsageError, usageOrBug } from "../errors.ts";
import {
  DEFAULT_TAU,
  ExamPrompt,
  type ExamRunFile,
  type ExamRunner,
  type ExamSpec,
  earlierExamRecords,
  estimateExams,
  examPool,
  formatExamSummary,
  inlineTaskRunner,
  itemRunner,
  loadReference,
  makeReference,
  Ordering,
  PointScheme,
  planExams,
  REPORT_FILES,
  readExamRunFile,
  runExamSession,
  taskIds,
  taskRunner,
} from "../exam/index.ts";
import { packageInfo } from "../package-info.ts";
import { relativeToProject } from "../project.ts";
import { InterruptedError, removeOnInterrupt } from "../sandbox/index.ts";
import { parseCondition } from "../task/index.ts";
import { newRunId, runDirOf } from "../trial/index.ts";
import type { CommandContext } from "./context.ts";
import { integerOption } from "./options.ts";
import { pingFirst } from "./ping-first.ts";

export interface ExamOptions {
  agent?: string;
  tasks?: string;
  inlineTasks?: string;
  condition?: string;
  n: string;
  exams: string;
  scheme: string;
  order: string;
  prompt: string;
  nameQuestions?: boolean;
  budget?: string;
  tau?: string;
  seed: string;
  reference?: string;
  runId?: string;
  resume?: string;
  makeReference?: string;
  trials: string;
  /** Parsed at the CLI edge (src/cli/settings.ts). */
  concurrency: number;
  json?: boolean;
  /** false (--no-ping): no endpoint ping before the first exam. */
  ping?: boolean;
  /** --estimate: print what the exams would cost and exit (no exam, no model call, no run directory). */
  estimate?: boolean;
  /** --max-cost <usd>: the run's cost ceiling (a resume may raise it). */
  maxCost?: string;
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

/** A new run's plan from the options (digests filled in once the pool and agent are loaded). */
function newRun(ctx: CommandContext, pool: string | undefined, o: ExamOptions): ExamRunFile {
  const { kind, source } = poolOf(pool, o);
  const tasks = kind === "items" ? undefined : source;
  if (!o.agent) throw new UsageError("--agent is required");
  if (!o.budget) throw new UsageError("--budget is required (B, the shared token budget of one exam)");
  const tau = o.tau === undefined ? DEFAULT_TAU : Number(o.tau);
  if (!Number.isFinite(tau) || tau < 0) throw new UsageError(`--tau must be a number >= 0, got "${o.tau}"`);
  const reference = o.reference ? loadReference(path.resolve(ctx.paths.root, o.reference)) : null;
  if (o.nameQuestions && kind === "tasks")
    throw new UsageError(
      "--name-questions is for item and inline-task exams: a task exam attributes effort by the task folders its tool calls name",
    );
  return {
    version: 1,
    runId: o.runId ?? newRunId(),
    kind,
    pool: pool
      ? { name: path.basename(pool, ".jsonl"), source: pool, digest: "" }
      : { name: "tasks", source: tasks!, digest: "" },
    agent: { name: o.agent, digest: "" },
    condition: tasks ? parseCondition(o.condition ?? "+A") : null,
    budget: integerOption("--budget", o.budget, { min: 1 }),
    tau,
    factors: {
      seed: integerOption("--seed", o.seed, { min: 0 }),
      sizes: list("--n", o.n, (s) => integerOption("--n", s, { min: 1 })),
      examsPerSize: integerOption("--exams", o.exams, { min: 1 }),
      schemes: list("--scheme", o.scheme, oneOf("--scheme", PointScheme)),
      orders: list("--order", o.order, oneOf("--order", Ordering)),
      prompts: list("--prompt", o.prompt, oneOf("--prompt", ExamPrompt)),
      nameQuestions: o.nameQuestions === true,
    },
    reference: reference
      ? { file: relativeToProject(ctx.paths, reference.file), digest: reference.digest }
      : null,
    createdAt: new Date().toISOString(),
  };
}

/** The kind and source of the pool the options name (one of a pool, --tasks, --inline-tasks). */
function poolOf(pool: string | undefined, o: ExamOptions) {
  const given = [pool, o.tasks, o.inlineTasks].filter((x) => x !== undefined).length;
  if (given === 0)
    throw new UsageError(
      "name an item pool (items/<pool>.jsonl or a .jsonl path), --tasks <ids>, --inline-tasks <ids>, or --resume a run",
    );
  if (given > 1) throw new UsageError("give one of an item pool, --tasks and --inline-tasks, not several");
  if (o.tasks) return { kind: "tasks" as const, source: o.tasks };
  if (o.inlineTasks) return { kind: "inline-tasks" as const, source: o.inlineTasks };
  return { kind: "items" as const, source: pool! };
}

/** `--make-reference <file>`: the reference run of the pool (items, tasks, inline tasks) instead of exams. */
async function reference(ctx: CommandContext, pool: string | undefined, o: ExamOptions): Promise<number> {
  const { kind, source } = poolOf(pool, o);
  if (!o.agent || !o.budget) throw new UsageError("--make-reference needs --agent and --budget");
  const file = path.resolve(ctx.paths.root, o.makeReference!);
  const options = {
    kind,
    source,
    agent: o.agent,
    condition: parseCondition(o.condition ?? "+A"),
    budget: integerOption("--budget", o.budget, { min: 1 }),
    trials: integerOption("--trials", o.trials, { min: 1 }),
    concurrency: o.concurrency,
    file,
    kgateVersion: packageInfo().version,
    runId: o.runId ?? newRunId(),
  };
  await pingFirst(ctx, [o.agent], o.ping, kind === "tasks" ? taskIds(ctx.paths, source) : []);
  const log = (line: string) => ctx.stderr.write(`${line}\n`);
  const controller = new AbortController();
  const stopListening = removeOnInterrupt(ctx.paths, options.runId, controller, log);
  let result: Awaited<ReturnType<typeof makeReference>>;
  try {
    result = await makeReference(ctx.paths, { ...options, signal: controller.signal }, log);
  } catch (err) {
    throw usageOrBug(err);
  } finally {
    stopListening();
  }
  const interrupted = controller.signal.reason;
  const counts = result;
  const summary = {
    file: relativeToProject(ctx.paths, file),
    runId: kind === "tasks" ? options.runId : null,
    ...counts,
  };
  ctx.stdout.write(
    o.json
      ? `${JSON.stringify(summary, null, 2)}\n`
      : `reference run: ${result.written} unit(s) written to ${summary.file}, ${result.kept} kept, ${result.failed.length} failed\n`,
  );
  if (interrupted instanceof InterruptedError) return interrupted.exitCode;
  return result.failed.length > 0 ? EXIT_FAILED : EXIT_OK;
}

/** --estimate: the plan's exams priced from earlier exam records or their bound; nothing runs. */
function printEstimate(ctx: CommandContext, poolArg: string | undefined, o: ExamOptions): number {
  if (o.resume) throw new UsageError("--estimate prices a new run's plan; it takes no --resume");
  let estimate: ReturnType<typeof estimateExams>;
  try {
    const run = newRun(ctx, poolArg, o);
    const pool = examPool(ctx.paths, run);
    estimate = estimateExams({
      specs: planExams(pool.units, run.factors),
      kind: run.kind,
      agentDigest: pool.config?.digest ?? "",
      poolDigest: pool.poolDigest,
      records: earlierExamRecords(ctx.paths.runs),
      bound: pool.bound,
    });
  } catch (err) {
    throw usageOrBug(err);
  }
  ctx.stdout.write(
    o.json
      ? `${JSON.stringify(estimate, null, 2)}\n`
      : estimateLines(estimate, "exam", [
          "without earlier records an exam is priced at its bound: B generated, and every token sent at the dearest input price",
        ]),
  );
  return EXIT_OK;
}

/** --max-cost: the ceiling, and each exam's bound at the configuration's prices (refused without them). */
function maxCostOf(text: string, runner: ExamRunner, agent: string) {
  const ceilingUsd = parseMaxCost(text);
  if (typeof ceilingUsd === "string") throw new UsageError(ceilingUsd);
  if (!runner.config?.pricing)
    throw new UsageError(`--max-cost needs prices: agent configuration ${agent} has no "pricing"`);
  return { ceilingUsd, worstCase: (spec: ExamSpec) => runner.bound(spec).usd! };
}

export async function run(ctx: CommandContext, poolArg: string | undefined, o: ExamOptions): Promise<number> {
  if (o.makeReference) return reference(ctx, poolArg, o);
  if (o.estimate) return printEstimate(ctx, poolArg, o);
  const log = (line: string) => ctx.stderr.write(`${line}\n`);
  const resume = o.resume !== undefined;
  let run: ExamRunFile;
  let runner: ExamRunner;
  const concurrency = o.concurrency;
  try {
    run = resume ? readExamRunFile(runDirOf(ctx.paths, o.resume!)) : newRun(ctx, poolArg, o);
    runner =
      run.kind === "items"
        ? await itemRunner(ctx.paths, run)
        : run.kind === "inline-tasks"
          ? await inlineTaskRunner(ctx.paths, run)
          : await taskRunner(ctx.paths, run, log);
  } catch (err) {
    throw usageOrBug(err);
  }
  // the pool and the options are checked first: then the endpoint, before the first exam
  const judged = run.kind === "tasks" ? taskIds(ctx.paths, run.pool.source) : [];
  await pingFirst(ctx, [run.agent.name], o.ping, judged).catch(async (err) => {
    await runner.dispose?.();
    throw err;
  });
  const runDir = runDirOf(ctx.paths, run.runId);
  // Ctrl-C: no exam starts after it, running ones end as cancelled (a resume runs them again)
  const controller = new AbortController();
  const stopListening = removeOnInterrupt(ctx.paths, run.runId, controller, log);
  let result: Awaited<ReturnType<typeof runExamSession>>;
  try {
    result = await runExamSession(
      {
        runDir,
        // what is loaded now: a new run records it, a resumed run is compared with what it recorded
        run: {
          ...run,
          pool: { ...run.pool, digest: runner.poolDigest },
          agent: { name: runner.agent.name, digest: runner.agent.digest },
          reference:
            runner.reference && run.reference ? { ...run.reference, digest: runner.reference.digest } : null,
        },
        agent: runner.agent,
        kgateVersion: packageInfo().version,
        units: runner.units,
        reference: runner.reference?.entries ?? null,
        runOne: runner.runOne,
        provider: runner.provider,
        concurrency,
        log,
        signal: controller.signal,
        ...(o.maxCost === undefined ? {} : { maxCost: maxCostOf(o.maxCost, runner, run.agent.name) }),
      },
      resume,
    );
  } catch (err) {
    throw usageOrBug(err);
  } finally {
    stopListening();
    await runner.dispose?.();
  }
  for (const problem of result.problems) log(`warning: ${problem}`);
  const { summary } = result;
  if (o.json) ctx.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  else {
    ctx.stdout.write(formatExamSummary(summary));
    const dir = relativeToProject(ctx.paths, runDir);
    ctx.stdout.write(
      `\nrecords ${dir}/exams.jsonl; report ${dir}/${REPORT_FILES.text}, ${dir}/${REPORT_FILES.chart}\n`,
    );
  }
  if (result.internal.length > 0)
    throw new InternalTrialErrors(result.internal.map((r) => ({ trialId: r.key, error: r.error })));
  const interrupted = controller.signal.reason;
  if (result.cancelled && interrupted instanceof InterruptedError) {
    log(`interrupted: resume with  kgate exam --resume ${run.runId}`);
    return interrupted.exitCode;
  }
  return summary.failed > 0 || summary.finished < summary.planned ? EXIT_FAILED : EXIT_OK;
}
