// `kgate run <task> --agent <name> --condition <c> [-n N] [--concurrency C]`: N trials of one cell
// through the trial engine, one TrialRecord each in runs/<run-id>/trials.jsonl; Ctrl-C cancels
// them (recorded as cancelled, never as the agent's failure) and removes the run's containers.
import path from "node:path";
import { type ProgressSource, runTrials, type TrialsResult } from "../api/index.ts";
import { pc } from "../colours.ts";
import { EXIT_FAILED, EXIT_OK, InternalTrialErrors, UsageError, usageOrBug } from "../errors.ts";
import { loadPayoffSchedule, monitorLine } from "../monitor/index.ts";
import { relativeToProject } from "../project.ts";
import { outcomeOf, type TrialRecord } from "../record/index.ts";
import { InterruptedError, removeOnInterrupt } from "../sandbox/index.ts";
import { newRunId, trialsFileOf } from "../trial/index.ts";
import type { CommandContext } from "./context.ts";
import { integerOption } from "./options.ts";
import { startupError } from "./startup-error.ts";

export interface RunOptions {
  agent: string;
  condition: string;
  n: string;
  /** Parsed at the CLI edge (src/cli/settings.ts). */
  concurrency: number;
  retries: number;
  runId?: string;
  json?: boolean;
  /** Ask the retrospective monitoring questions after each trial (built-in loop; installed harness: a follow-up). */
  monitor?: boolean;
  /** Before each -A trial, the prospective choice (built-in loop or installed harness), scored with --payoff or the default. */
  prospective?: boolean;
  payoff?: string;
  /** false (--no-ping): skip the endpoint ping before the first trial. */
  ping?: boolean;
}

function seconds(record: TrialRecord): string {
  return `${((Date.parse(record.finishedAt) - Date.parse(record.startedAt)) / 1000).toFixed(1)} s`;
}

function summary(record: TrialRecord): string {
  const collected = record.outputs.filter((o) => o.status === "collected").length;
  const error = record.error
    ? `${record.error.owner}/${record.error.kind}: ${record.error.message.split("\n")[0]}`
    : "-";
  const monitor = record.monitor ? `  ${monitorLine(record.monitor)}` : "";
  return `${record.stopReason.padEnd(9)} outputs ${collected}/${record.outputs.length}  ${record.verdict.status.padEnd(10)} ${seconds(record).padStart(7)}  ${error}${monitor}`;
}

/** --payoff's schedule when --prospective asks for the choice. */
function payoffOf(options: RunOptions) {
  if (!options.prospective) return undefined;
  try {
    return loadPayoffSchedule(options.payoff);
  } catch (err) {
    const e = usageOrBug(err);
    throw e instanceof UsageError ? new UsageError(`--prospective: ${e.message}`) : e;
  }
}

export async function run(ctx: CommandContext, taskId: string, options: RunOptions): Promise<number> {
  const n = integerOption("-n", options.n, { min: 1 });
  const { concurrency, retries } = options;
  const log = (line: string) => ctx.stderr.write(`${line}\n`);
  const shown: Record<ProgressSource, (line: string) => string> = {
    agent: (line) => `${pc.dim(`${options.agent}:`)} ${line}`,
    sandbox: (line) => pc.dim(line),
    run: (line) => line,
  };
  const runId = options.runId ?? newRunId();
  const controller = new AbortController();
  const dispose = removeOnInterrupt(ctx.paths, runId, controller, log);
  let result: TrialsResult;
  try {
    result = await runTrials(
      { paths: ctx.paths },
      {
        task: taskId,
        agent: options.agent,
        condition: options.condition,
        n,
        concurrency,
        retries,
        runId,
        signal: controller.signal,
        onTrial: (r) => log(`${pc.dim("trial")} ${r.trialId}  ${summary(r)}`),
        onProgress: (line, source) => log(shown[source](line)),
        monitor: options.monitor === true,
        prospective: payoffOf(options),
        ping: options.ping,
      },
    );
  } catch (err) {
    throw startupError(err);
  } finally {
    dispose();
  }
  const { records, runDir } = result;
  const file = relativeToProject(ctx.paths, trialsFileOf(runDir));
  if (options.json) {
    ctx.stdout.write(
      `${JSON.stringify({ runId, runDir, trialsFile: path.resolve(trialsFileOf(runDir)), records }, null, 2)}\n`,
    );
  } else {
    ctx.stdout.write(`run ${runId}: ${records.length} trial(s) recorded in ${file}\n`);
    for (const r of records) ctx.stdout.write(`  ${r.trialId}  ${summary(r)}\n`);
  }
  if (result.internalErrors.length > 0) throw new InternalTrialErrors(result.internalErrors);
  const reason = controller.signal.reason;
  if (reason instanceof InterruptedError) return reason.exitCode;
  return records.some((r) => outcomeOf(r) === "infra") ? EXIT_FAILED : EXIT_OK;
}
