// `kgate probe recite|canary|compress <task> --agent <name>...`: diagnostic probes whose units run on
// the one engine (--concurrency, retries by failure kind, Ctrl-C cancels, --resume finishes a run):
// records in runs/<run>/trials.jsonl, what each probe learnt in probes.jsonl, the probe's report as
// <probe>.json beside them and as a table on stdout.
import { existsSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { lineProblemText } from "../common/index.ts";
import { EXIT_FAILED, EXIT_OK, InternalTrialErrors, UsageError, usageOrBug } from "../errors.ts";
import { packageInfo } from "../package-info.ts";
import {
  type CanaryReport,
  type CompressReport,
  canary,
  compress,
  curveSvg,
  type ProbeAgent,
  type ProbeRun,
  probeAgents,
  type ReciteReport,
  readProbeLines,
  recite,
  settleProbeRun,
  type UnitsRun,
} from "../probes/index.ts";
import { relativeToProject } from "../project.ts";
import { errorKindsLine, errorsByKind, type TrialError, type TrialRecord } from "../record/index.ts";
import { InterruptedError, removeOnInterrupt } from "../sandbox/index.ts";
import { type LoadedTask, loadValidTask } from "../task/index.ts";
import { newRunId, readTrialRecords, runDirOf } from "../trial/index.ts";
import type { CommandContext } from "./context.ts";
import { integerOption } from "./options.ts";
import { pingFirst } from "./ping-first.ts";
import {
  ceilingRun,
  estimateAgents,
  estimateRun,
  type ProbeCost,
  printEstimate,
  probeBudgetLine,
} from "./probe-cost.ts";

export interface ProbeOptions {
  agent: string[];
  n: string;
  runId?: string;
  maxEnvBytes?: string;
  /** Parsed at the CLI edge (src/cli/settings.ts). */
  concurrency: number;
  resume?: string;
  json?: boolean;
  /** --estimate: print what the probe would cost and exit (no trial, no model call, no run directory). */
  estimate?: boolean;
  /** --max-cost <usd>: the run's cost ceiling (a resume may raise it). */
  maxCost?: string;
  /** false (--no-ping): no endpoint ping before the first trial. */
  ping?: boolean;
}

export interface ReciteOptions extends ProbeOptions {
  against?: string[];
}

export type CanaryOptions = ReciteOptions;

interface Prepared {
  task: LoadedTask;
  agents: ProbeAgent[];
  n: number;
  run: ProbeRun;
  /** --estimate's collector or --max-cost's ceiling. */
  cost: ProbeCost;
  /** Stops listening for Ctrl-C. */
  dispose(): void;
}

async function prepare(
  ctx: CommandContext,
  probe: "recite" | "canary" | "compress",
  taskId: string,
  o: ProbeOptions,
): Promise<Prepared> {
  const n = integerOption("-n", o.n, { min: 1 });
  const { concurrency } = o;
  const maxEnvironmentBytes =
    o.maxEnvBytes === undefined ? undefined : integerOption("--max-env-bytes", o.maxEnvBytes, { min: 1 });
  if (o.resume && o.runId) throw new UsageError("--resume names the run: leave out --run-id");
  let task: LoadedTask;
  let agents: ProbeAgent[];
  if (o.estimate && (o.resume || o.maxCost))
    throw new UsageError("--estimate prices a new run; it takes no --resume or --max-cost");
  const runId = o.resume ?? o.runId ?? newRunId();
  const estimate = o.estimate ? estimateRun() : null;
  const runDir = estimate?.runDir ?? runDirOf(ctx.paths, runId);
  const kgateVersion = packageInfo().version;
  try {
    task = loadValidTask(ctx.paths, taskId);
    agents = estimate ? estimateAgents(ctx, o.agent) : await probeAgents(ctx.paths, o.agent);
    if (!estimate) await pingFirst(ctx, o.agent, o.ping);
    if (!estimate)
      settleProbeRun(
        runDir,
        {
          probe,
          task: { id: task.id, digest: task.digests.task },
          agents: agents.map(({ config }) => ({ name: config.name, digest: config.digest })),
          n,
          maxEnvironmentBytes: maxEnvironmentBytes ?? null,
          kgateVersion,
        },
        o.resume !== undefined,
      );
  } catch (err) {
    if (estimate) rmSync(estimate.runDir, { recursive: true, force: true });
    throw usageOrBug(err);
  }
  const cost = estimate ?? (o.maxCost === undefined ? {} : ceilingRun(o.maxCost, agents, runDir));
  const verb = o.estimate ? "estimating" : o.resume ? "resuming" : "run";
  ctx.stderr.write(
    `probe ${probe} ${task.id}: ${verb} ${runId}, ${n} trial(s) for ${o.agent.join(", ")}, concurrency ${concurrency}\n`,
  );
  const onRecord = (r: TrialRecord) =>
    ctx.stderr.write(
      `trial ${r.trialId}  ${r.verdict.status}${r.error ? `  ${r.error.owner}/${r.error.kind}` : ""}\n`,
    );
  const controller = new AbortController();
  const dispose = removeOnInterrupt(ctx.paths, runId, controller, (line) => ctx.stderr.write(`${line}\n`));
  return {
    task,
    agents,
    n,
    dispose,
    cost,
    run: {
      admit: cost.admit,
      paths: ctx.paths,
      runId,
      runDir,
      kgateVersion,
      maxEnvironmentBytes,
      concurrency,
      signal: controller.signal,
      onRecord,
    },
  };
}

/**
 * After a probe's units: kgate's own errors fail the command (exit 2, with their stacks); an
 * interrupted run says how to resume and exits with the signal's code; otherwise `code`.
 */
function ending(
  ctx: CommandContext,
  probe: string,
  p: Prepared,
  ran: UnitsRun<{ trialId: string; error?: TrialError | null }>,
  code: number,
): number {
  if (ran.internal.length > 0)
    throw new InternalTrialErrors(ran.internal.map((r) => ({ ...r, error: r.error ?? null })));
  const reason = p.run.signal?.reason;
  if (ran.cancelled && reason instanceof InterruptedError) {
    ctx.stderr.write(
      `interrupted: resume with  kgate probe ${probe} ${p.task.id} ${p.agents.map((a) => `--agent ${a.config.name}`).join(" ")} -n ${p.n} --resume ${p.run.runId}\n`,
    );
    return reason.exitCode;
  }
  // units the cost ceiling refused have no result: the probe is not finished
  if ((p.cost.ceiling?.state.refused ?? 0) > 0) return EXIT_FAILED;
  return code;
}

function writeReport(ctx: CommandContext, run: ProbeRun, name: string, report: unknown): void {
  const file = path.join(run.runDir, `${name}.json`);
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  ctx.stderr.write(`wrote ${relativeToProject(ctx.paths, file)}\n`);
}

function sandboxRecords(ctx: CommandContext, runs: readonly string[]): TrialRecord[] {
  return runs.flatMap((name) => {
    const dir =
      path.isAbsolute(name) || name.includes(path.sep) ? path.resolve(name) : runDirOf(ctx.paths, name);
    const read = readTrialRecords(dir);
    for (const p of read.problems) ctx.stderr.write(`warning: ${p.file}:${p.line}: ${p.message}\n`);
    if (read.records.length === 0 && read.problems.length === 0)
      throw new UsageError(`--against ${name}: no trial records in ${dir}`);
    return read.records;
  });
}

function reciteTable(reports: readonly ReciteReport[]): string {
  const lines = ["agent\tmodel\trecited\tinline\tsandboxed\tlayer\treason"];
  for (const r of reports) {
    const sandboxed = r.sandboxed ? `${r.sandboxed.passed}/${r.sandboxed.runs}` : "-";
    lines.push(
      [
        r.agent.name,
        r.agent.model,
        `${r.recitedRight}/${r.valid}`,
        `${r.inlinePassed}/${r.valid}`,
        sandboxed,
        r.layer,
        r.reason,
      ].join("\t"),
    );
    const names = r.trials[0]?.conventions.map((c) => c.name) ?? [];
    const valid = r.trials.filter((t) => !t.infra);
    const perConvention = names.map((name) => {
      const right = valid.filter((t) => t.conventions.find((c) => c.name === name)?.correct).length;
      return `${name} ${right}/${valid.length}`;
    });
    if (perConvention.length) lines.push(`  conventions recited right: ${perConvention.join(", ")}`);
  }
  return `${lines.join("\n")}\n`;
}

/** The report file and stdout of a probe, its errors counted by kind; the exit code as `ending` decides. */
function finish(
  ctx: CommandContext,
  name: "recite" | "canary" | "compress",
  p: Prepared,
  report: Record<string, unknown>,
  errors: ReadonlyArray<TrialError | null | undefined>,
  table: string,
  json: boolean | undefined,
): Record<string, unknown> {
  for (const problem of [
    ...readTrialRecords(p.run.runDir).problems,
    ...readProbeLines(p.run.runDir).problems,
  ])
    ctx.stderr.write(`warning: ${lineProblemText(problem)}\n`);
  const counted = errorsByKind(errors);
  const line = errorKindsLine(counted);
  if (line) ctx.stderr.write(`errors by kind: ${line}\n`);
  const full = {
    probe: name,
    runId: p.run.runId,
    kgateVersion: p.run.kgateVersion,
    ...report,
    errors: counted,
    ...(p.cost.ceiling ? { budget: p.cost.ceiling.state } : {}),
  };
  if (p.cost.ceiling) {
    const resume = `kgate probe ${name} ${p.task.id} ${p.agents.map((a) => `--agent ${a.config.name}`).join(" ")} -n ${p.n} --resume ${p.run.runId}`;
    ctx.stderr.write(`${probeBudgetLine(p.cost.ceiling.state, resume)}\n`);
  }
  writeReport(ctx, p.run, name, full);
  ctx.stdout.write(
    json ? `${JSON.stringify({ runId: p.run.runId, ...report, errors: counted }, null, 2)}\n` : table,
  );
  return full;
}

export async function reciteCommand(ctx: CommandContext, taskId: string, o: ReciteOptions): Promise<number> {
  const against = sandboxRecords(ctx, o.against ?? []);
  const p = await prepare(ctx, "recite", taskId, o);
  try {
    const ran = await recite(p.task, p.agents, p.n, p.run, against).catch((err) => {
      throw usageOrBug(err);
    });
    if (p.cost.works) return printEstimate(ctx, "recite", p.task, p.cost, o.json);
    const { reports } = ran;
    const errors = readTrialRecords(p.run.runDir).records.map((r) => r.error);
    finish(ctx, "recite", p, { reports }, errors, reciteTable(reports), o.json);
    return ending(ctx, "recite", p, ran, reports.every((r) => r.layer === "none") ? EXIT_OK : EXIT_FAILED);
  } finally {
    p.dispose();
  }
}

function canaryTable(reports: readonly CanaryReport[]): string {
  const lines = ["agent\tmodel\tcontinuation\tconstants\t-A canary\tverdict"];
  for (const r of reports) {
    const continued = r.trials.filter((t) => t.continuationHit).length;
    const constants = [...new Set(r.trials.flatMap((t) => t.constantHits))];
    const leaked = r.minusARecords ? `${r.minusARecords.leaked}/${r.minusARecords.runs}` : "-";
    lines.push(
      [
        r.agent.name,
        r.agent.model,
        `${continued}/${r.trials.length}`,
        constants.length ? constants.join(",") : "none",
        leaked,
        r.contaminated ? "contaminated" : "no sign",
      ].join("\t"),
    );
    for (const t of r.trials)
      if (t.error) lines.push(`  ${t.id}: ${t.error.owner}/${t.error.kind}: ${t.error.message}`);
  }
  return `${lines.join("\n")}\n`;
}

export async function canaryCommand(ctx: CommandContext, taskId: string, o: CanaryOptions): Promise<number> {
  const against = sandboxRecords(ctx, o.against ?? []);
  const p = await prepare(ctx, "canary", taskId, o);
  try {
    const ran = await canary(p.task, p.agents, p.n, p.run, against).catch((err) => {
      throw usageOrBug(err);
    });
    if (p.cost.works) return printEstimate(ctx, "canary", p.task, p.cost, o.json);
    const { reports } = ran;
    const errors = reports.flatMap((r) => r.trials.map((t) => t.error));
    finish(ctx, "canary", p, { reports }, errors, canaryTable(reports), o.json);
    return ending(ctx, "canary", p, ran, reports.some((r) => r.contaminated) ? EXIT_FAILED : EXIT_OK);
  } finally {
    p.dispose();
  }
}

function compressTable(report: CompressReport): string {
  const lines = [["arm", "bytes", ...report.agents.map((a) => a.name)].join("\t")];
  const arms = [...new Set(report.results.map((r) => r.arm))];
  for (const arm of arms) {
    const rows = report.results.filter((r) => r.arm === arm);
    lines.push([arm, rows[0]!.bytes, ...rows.map((r) => `${r.passes}/${r.runs}`)].join("\t"));
  }
  for (const e of report.effects) lines.push(`${e.agent}: cutting ${e.convention}: ${e.effect}`);
  if (report.unmarked.length)
    lines.push(`not marked in the artefact (not cut): ${report.unmarked.join(", ")}`);
  return `${lines.join("\n")}\n`;
}

export async function compressCommand(ctx: CommandContext, taskId: string, o: ProbeOptions): Promise<number> {
  const p = await prepare(ctx, "compress", taskId, o);
  try {
    const ran = await compress(p.task, p.agents, p.n, p.run).catch((err) => {
      throw usageOrBug(err);
    });
    if (p.cost.works) return printEstimate(ctx, "compress", p.task, p.cost, o.json);
    const { report } = ran;
    const errors = existsSync(path.join(p.run.runDir, "compress"))
      ? readdirSync(path.join(p.run.runDir, "compress")).flatMap((arm) =>
          readTrialRecords(path.join(p.run.runDir, "compress", arm)).records.map((r) => r.error),
        )
      : [];
    finish(ctx, "compress", p, { ...report }, errors, compressTable(report), o.json);
    const svg = path.join(p.run.runDir, "compress.svg");
    writeFileSync(svg, curveSvg(report));
    ctx.stderr.write(`wrote ${relativeToProject(ctx.paths, svg)}\n`);
    const lost = report.results.some((r) => {
      const full = report.results.find((f) => f.agent === r.agent && f.kind === "artefact")!;
      return r.kind === "compressed" && r.runs > 0 && r.interval.hi < full.interval.lo;
    });
    return ending(ctx, "compress", p, ran, lost ? EXIT_FAILED : EXIT_OK);
  } finally {
    p.dispose();
  }
}
