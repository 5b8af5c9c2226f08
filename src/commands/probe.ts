// `kgate probe recite|canary <task> --agent <name>...`: diagnostic probes run as inline trials
// (one conversation, no tools): records in runs/<run>/trials.jsonl, what each probe learnt in
// probes.jsonl, the probe's report as <probe>.json beside them and as a table on stdout.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { EXIT_FAILED, EXIT_OK, UsageError, usageOrBug } from "../errors.ts";
import type { TrialRecord } from "../model/index.ts";
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
  recite,
} from "../probes/index.ts";
import { relativeToProject } from "../project.ts";
import { type LoadedTask, loadValidTask } from "../task/index.ts";
import { newRunId, readTrialRecords, runDirOf } from "../trial/index.ts";
import type { CommandContext } from "./context.ts";
import { integerOption } from "./options.ts";

export interface ProbeOptions {
  agent: string[];
  n: string;
  runId?: string;
  maxEnvBytes?: string;
  json?: boolean;
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
}

async function prepare(
  ctx: CommandContext,
  probe: string,
  taskId: string,
  o: ProbeOptions,
): Promise<Prepared> {
  const n = integerOption("-n", o.n, { min: 1 });
  const maxEnvironmentBytes =
    o.maxEnvBytes === undefined ? undefined : integerOption("--max-env-bytes", o.maxEnvBytes, { min: 1 });
  let task: LoadedTask;
  let agents: ProbeAgent[];
  try {
    task = loadValidTask(ctx.paths, taskId);
    agents = await probeAgents(ctx.paths, o.agent);
  } catch (err) {
    throw usageOrBug(err);
  }
  const runId = o.runId ?? newRunId();
  const runDir = runDirOf(ctx.paths, runId);
  ctx.stderr.write(`probe ${probe} ${task.id}: run ${runId}, ${n} trial(s) for ${o.agent.join(", ")}\n`);
  const onRecord = (r: TrialRecord) =>
    ctx.stderr.write(
      `trial ${r.trialId}  ${r.verdict.status}${r.error ? `  ${r.error.owner}/${r.error.kind}` : ""}\n`,
    );
  return {
    task,
    agents,
    n,
    run: { runId, runDir, kgateVersion: packageInfo().version, maxEnvironmentBytes, onRecord },
  };
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

export async function reciteCommand(ctx: CommandContext, taskId: string, o: ReciteOptions): Promise<number> {
  const against = sandboxRecords(ctx, o.against ?? []);
  const { task, agents, n, run } = await prepare(ctx, "recite", taskId, o);
  let reports: ReciteReport[];
  try {
    reports = await recite(task, agents, n, run, against);
  } catch (err) {
    throw usageOrBug(err);
  }
  writeReport(ctx, run, "recite", {
    probe: "recite",
    runId: run.runId,
    kgateVersion: run.kgateVersion,
    reports,
  });
  ctx.stdout.write(
    o.json ? `${JSON.stringify({ runId: run.runId, reports }, null, 2)}\n` : reciteTable(reports),
  );
  return reports.every((r) => r.layer === "none") ? EXIT_OK : EXIT_FAILED;
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
    for (const t of r.trials) if (t.error) lines.push(`  ${t.id}: ${t.error}`);
  }
  return `${lines.join("\n")}\n`;
}

export async function canaryCommand(ctx: CommandContext, taskId: string, o: CanaryOptions): Promise<number> {
  const against = sandboxRecords(ctx, o.against ?? []);
  const { task, agents, n, run } = await prepare(ctx, "canary", taskId, o);
  let reports: CanaryReport[];
  try {
    reports = await canary(task, agents, n, run, against);
  } catch (err) {
    throw usageOrBug(err);
  }
  writeReport(ctx, run, "canary", {
    probe: "canary",
    runId: run.runId,
    kgateVersion: run.kgateVersion,
    reports,
  });
  ctx.stdout.write(
    o.json ? `${JSON.stringify({ runId: run.runId, reports }, null, 2)}\n` : canaryTable(reports),
  );
  return reports.some((r) => r.contaminated) ? EXIT_FAILED : EXIT_OK;
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
  const { task, agents, n, run } = await prepare(ctx, "compress", taskId, o);
  let report: CompressReport;
  try {
    report = await compress(task, agents, n, run);
  } catch (err) {
    throw usageOrBug(err);
  }
  writeReport(ctx, run, "compress", {
    probe: "compress",
    runId: run.runId,
    kgateVersion: run.kgateVersion,
    ...report,
  });
  const svg = path.join(run.runDir, "compress.svg");
  writeFileSync(svg, curveSvg(report));
  ctx.stderr.write(`wrote ${relativeToProject(ctx.paths, svg)}\n`);
  ctx.stdout.write(
    o.json ? `${JSON.stringify({ runId: run.runId, ...report }, null, 2)}\n` : compressTable(report),
  );
  const lost = report.results.some((r) => {
    const full = report.results.find((f) => f.agent === r.agent && f.kind === "artefact")!;
    return r.kind === "compressed" && r.runs > 0 && r.interval.hi < full.interval.lo;
  });
  return lost ? EXIT_FAILED : EXIT_OK;
}
