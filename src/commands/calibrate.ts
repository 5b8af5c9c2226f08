// `kgate calibrate [task...]`: n trials per cell for every task (or the named ones), the retain
// rule with reasons, and the reports; `--resume <run>` finishes an interrupted run. Progress on
// stderr, Table 1 (or --json) on stdout; exit 0 when every task is retained, 1 otherwise.

import { loadAgentConfigs } from "../agents/index.ts";
import { type CalibrationResult, calibrate } from "../api/index.ts";
import {
  applyOverrides,
  type CalibrationConfig,
  type ConfigOverrides,
  earlierRecords,
  estimateCalibration,
  estimateText,
  expandCells,
  judgeBoundsOf,
  judgeWorstCases,
  loadCalibrationConfig,
  OverrideError,
  type PlanMonitoring,
} from "../calibrate/index.ts";
import { pc } from "../colours.ts";
import { parseMaxCost } from "../cost/index.ts";
import { EXIT_FAILED, EXIT_OK, InternalTrialErrors, UsageError, usageOrBug } from "../errors.ts";
import { loadPayoffSchedule } from "../monitor/index.ts";
import { relativeToProject } from "../project.ts";
import { table1 } from "../report/index.ts";
import { InterruptedError, removeOnInterrupt } from "../sandbox/index.ts";
import { formatProblem, loadAllTasks, loadValidTask } from "../task/index.ts";
import { newRunId } from "../trial/index.ts";
import { CROSS_DEFAULT, crossReport, crossText, withCrossCells, writeCross } from "./calibrate-cross.ts";
import type { CommandContext } from "./context.ts";
import { integerOption } from "./options.ts";
import { startupError } from "./startup-error.ts";
import { expandTaskGlobs } from "./task-ids.ts";

export interface CalibrateOptions extends Omit<ConfigOverrides, "n" | "concurrency" | "cap" | "confidence"> {
  n?: string;
  /** Parsed at the CLI edge (src/cli/settings.ts); left out, calibration.concurrency applies. */
  concurrency?: number;
  cap?: string;
  confidence?: string;
  resume?: string;
  /** The crossed configurations, `<frontier model in mid harness>,<mid model in frontier harness>`. */
  cross?: string | boolean;
  runId?: string;
  json?: boolean;
  /** Ask the monitoring questions after each trial (docs/monitoring.md). */
  monitor?: boolean;
  /** Before each -A trial of a model configuration, the prospective choice, scored with --payoff or the default. */
  prospective?: boolean;
  payoff?: string;
  /** --estimate: print what the run would cost and exit (no trial, no model call). */
  estimate?: boolean;
  /** --max-cost <usd>: the run's cost ceiling, kept in its plan (a resume keeps it, or replaces it with its own). */
  maxCost?: string;
  /** false (--no-ping): no endpoint ping before the first trial. */
  ping?: boolean;
}

/** Options that define a plan, as written on the command line; a resumed run keeps its own plan. */
const PLAN_OPTIONS: Array<[keyof CalibrateOptions, string]> = [
  ["n", "-n"],
  ["cell", "--cell"],
  ["threshold", "--threshold"],
  ["frontier", "--frontier"],
  ["mid", "--mid"],
  ["sequential", "--sequential"],
  ["cap", "--cap"],
  ["confidence", "--confidence"],
  ["cross", "--cross"],
  ["strict", "--strict"],
  ["monitor", "--monitor"],
  ["prospective", "--prospective"],
  ["payoff", "--payoff"],
];

function number(text: string | undefined, option: string): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isFinite(value)) throw new UsageError(`${option}: "${text}" is not a number`);
  return value;
}

const positive = (text: string | undefined, option: string) =>
  text === undefined ? undefined : integerOption(option, text, { min: 1 });

export function effectiveConfig(ctx: CommandContext, o: CalibrateOptions): CalibrationConfig {
  const loaded = loadCalibrationConfig(ctx.paths);
  if (!loaded.ok) throw new UsageError(loaded.errors.map(formatProblem).join("\n"));
  if (o.resume) {
    const names = PLAN_OPTIONS.filter(([key]) => o[key] !== undefined).map(([, flag]) => flag);
    if (o.controls === false) names.push("--no-controls");
    if (o.curtail === false) names.push("--no-curtail");
    if (names.length > 0) {
      throw new UsageError(
        `--resume keeps the run's own plan; ${names.join(", ")} cannot change it (start a new run instead)`,
      );
    }
  }
  try {
    return applyOverrides(loaded.config, {
      ...o,
      n: positive(o.n, "-n"),
      concurrency: o.concurrency,
      cap: positive(o.cap, "--cap"),
      confidence: number(o.confidence, "--confidence"),
      // commander sets curtail to true unless --no-curtail: only the flag overrides the config file
      curtail: o.curtail === false ? false : undefined,
    });
  } catch (err) {
    if (err instanceof OverrideError) throw new UsageError(err.message);
    throw err;
  }
}

/** The monitoring a new run asks (a resumed run asks its plan's). */
function monitoringOf(o: CalibrateOptions): PlanMonitoring | null {
  if (o.resume) return null;
  if (o.payoff !== undefined && !o.prospective) throw new UsageError("--payoff needs --prospective");
  let prospective: PlanMonitoring["prospective"] = null;
  try {
    if (o.prospective) prospective = loadPayoffSchedule(o.payoff);
  } catch (err) {
    const e = usageOrBug(err);
    throw e instanceof UsageError ? new UsageError(`--payoff: ${e.message}`) : e;
  }
  return o.monitor || prospective ? { probes: o.monitor === true, prospective } : null;
}

/** --max-cost: a non-negative number of USD (absent: a resume keeps the plan's ceiling). */
function maxCostOf(text: string | undefined): number | undefined {
  const ceilingUsd = text === undefined ? undefined : parseMaxCost(text);
  if (typeof ceilingUsd === "string") throw new UsageError(ceilingUsd);
  return ceilingUsd;
}

/** --estimate: the plan's cells priced from earlier records or the caps (the judges' calls too); no trial runs. */
async function printEstimate(
  ctx: CommandContext,
  config: CalibrationConfig,
  taskIds: string[],
  json: boolean,
): Promise<number> {
  const load = (id: string) => {
    try {
      return loadValidTask(ctx.paths, id);
    } catch (err) {
      throw usageOrBug(err);
    }
  };
  const tasks =
    taskIds.length > 0 ? taskIds.map(load) : loadAllTasks(ctx.paths).flatMap((r) => (r.ok ? [r.task] : []));
  const configs = loadAgentConfigs(ctx.paths).agents;
  const expand = (task: (typeof tasks)[number]) => {
    try {
      return expandCells(task, config.cells).cells;
    } catch (err) {
      throw usageOrBug(err);
    }
  };
  const estimate = estimateCalibration({
    cells: tasks.flatMap(expand),
    tasks: new Map(tasks.map((t) => [t.id, t])),
    agents: new Map(configs.map((a) => [a.name, { digest: a.digest, caps: a }])),
    trialsPerCell: config.sequential.enabled ? Math.max(config.n, config.sequential.cap) : config.n,
    records: earlierRecords(ctx.paths.runs),
    judges: judgeWorstCases(ctx.paths, await judgeBoundsOf(tasks)),
  });
  ctx.stdout.write(json ? `${JSON.stringify(estimate, null, 2)}\n` : estimateText(estimate));
  return EXIT_OK;
}

export async function run(ctx: CommandContext, requested: string[], o: CalibrateOptions): Promise<number> {
  const base = effectiveConfig(ctx, o);
  const taskIds = expandTaskGlobs(ctx.paths, requested);
  if (o.estimate) {
    if (o.resume) throw new UsageError("--estimate prices a new run's plan; it takes no --resume");
    return printEstimate(ctx, base, taskIds, o.json === true);
  }
  const config = o.cross ? withCrossCells(ctx.paths, base, o.cross === true ? CROSS_DEFAULT : o.cross) : base;
  if (o.resume && taskIds.length > 0) throw new UsageError("--resume takes no task ids: the plan names them");
  const monitoring = monitoringOf(o);
  const runId = o.resume ? undefined : (o.runId ?? newRunId("cal"));
  const maxCostUsd = maxCostOf(o.maxCost);
  const log = (line: string) => ctx.stderr.write(`${line}\n`);
  const controller = new AbortController();
  const dispose = removeOnInterrupt(ctx.paths, o.resume ?? runId!, controller, log);
  let result: CalibrationResult;
  try {
    result = await calibrate(
      { paths: ctx.paths },
      {
        config,
        tasks: taskIds,
        resume: o.resume,
        runId,
        signal: controller.signal,
        progressStream: ctx.stderr as CommandContext["stderr"] & { isTTY?: boolean },
        monitoring,
        maxCostUsd,
        ping: o.ping,
      },
    );
  } catch (err) {
    throw startupError(err);
  } finally {
    dispose();
  }
  const { summary, reports } = result;
  for (const warning of summary.warnings) log(`warning: ${warning}`);
  log(`reports: ${reports.map((f) => relativeToProject(ctx.paths, f)).join(", ")}`);
  if (result.interrupted) {
    log(pc.yellow(`interrupted: resume with  kgate calibrate --resume ${result.runId}`));
  }
  const cross = o.cross ? crossReport(summary) : null;
  if (cross) log(`cross: ${relativeToProject(ctx.paths, writeCross(result.runDir, cross))}`);
  ctx.stdout.write(
    o.json
      ? `${JSON.stringify(cross ? { ...summary, cross } : summary, null, 2)}\n`
      : `${table1(summary)}\n${cross ? `\n${crossText(cross)}` : ""}`,
  );
  if (result.internalErrors.length > 0) throw new InternalTrialErrors(result.internalErrors);
  const reason = controller.signal.reason;
  if (reason instanceof InterruptedError) return reason.exitCode;
  return summary.tasks.every((t) => t.decision === "retain") ? EXIT_OK : EXIT_FAILED;
}
