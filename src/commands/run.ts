// `kgate run <task> --agent <name> --condition <c> [-n N] [--concurrency C]`: N trials of one cell
// through the trial engine, one TrialRecord each in runs/<run-id>/trials.jsonl; Ctrl-C cancels
// them (recorded as cancelled, never as the agent's failure) and removes the run's containers.
import path from "node:path";
import { BuiltinAgent, InstalledAgent, resolveAgent } from "../agents/index.ts";
import { pc } from "../colours.ts";
import { EXIT_FAILED, EXIT_OK, InternalTrialErrors, UsageError, usageOrBug } from "../errors.ts";
import {
  askRetrospectiveQuestions,
  loadPayoffSchedule,
  monitorLine,
  prospectiveHook,
} from "../monitor/index.ts";
import { relativeToProject } from "../project.ts";
import { type Condition, outcomeOf, type TrialRecord } from "../record/index.ts";
import { InterruptedError, removeOnInterrupt } from "../sandbox/index.ts";
import { conditionFileSet, type LoadedTask, loadValidTask, parseCondition } from "../task/index.ts";
import {
  agentInfoOf,
  newRunId,
  openSandboxRunner,
  runDirOf,
  TrialEngine,
  trialsFileOf,
} from "../trial/index.ts";
import type { CommandContext } from "./context.ts";
import { integerOption } from "./options.ts";
import { pingFirst } from "./ping-first.ts";
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

/** The sandbox and the agent, prepared once; what cannot start is the user's to fix (exit 2). */
async function openRunner(
  ctx: CommandContext,
  options: RunOptions,
  taskId: string,
  log: (line: string) => void,
) {
  const agent = await resolveAgent(ctx.paths, options.agent, {
    log: (line) => log(`${pc.dim(`${options.agent}:`)} ${line}`),
  }).catch((err: unknown) => {
    throw usageOrBug(err);
  });
  await pingFirst(ctx, [options.agent], options.ping, [taskId]);
  if (options.monitor && !(agent instanceof BuiltinAgent) && !(agent instanceof InstalledAgent))
    log(
      `warning: --monitor: the questions need a model configuration (built-in loop or installed harness); ${agent.name} runs ${agent.harness}`,
    );
  let prospective: ReturnType<typeof prospectiveHook> | undefined;
  try {
    if (options.prospective) prospective = prospectiveHook(agent, loadPayoffSchedule(options.payoff));
  } catch (err) {
    const e = usageOrBug(err);
    throw e instanceof UsageError ? new UsageError(`--prospective: ${e.message}`) : e;
  }
  try {
    const sandbox = await openSandboxRunner({
      paths: ctx.paths,
      agents: [agent],
      log: (line) => log(pc.dim(line)),
      ...(options.monitor ? { followUp: askRetrospectiveQuestions } : {}),
      ...(prospective ? { prospective } : {}),
    });
    return { agent, sandbox };
  } catch (err) {
    throw startupError(err);
  }
}

export async function run(ctx: CommandContext, taskId: string, options: RunOptions): Promise<number> {
  const n = integerOption("-n", options.n, { min: 1 });
  const { concurrency, retries } = options;
  let condition: Condition;
  let task: LoadedTask;
  try {
    condition = parseCondition(options.condition);
    task = loadValidTask(ctx.paths, taskId);
    conditionFileSet(task, condition); // an unknown variant is the user's error, before anything runs
  } catch (err) {
    throw usageOrBug(err);
  }
  const log = (line: string) => ctx.stderr.write(`${line}\n`);
  const { agent, sandbox } = await openRunner(ctx, options, task.id, log);
  const runId = options.runId ?? newRunId();
  const runDir = runDirOf(ctx.paths, runId);
  const controller = new AbortController();
  const dispose = removeOnInterrupt(ctx.paths, runId, controller, log);
  log(
    `run ${runId}: ${n} trial(s) of ${task.id} ${condition} with ${agent.name}, concurrency ${concurrency}`,
  );
  let records: TrialRecord[];
  let engine: TrialEngine;
  try {
    engine = new TrialEngine({
      runId,
      runDir,
      runner: sandbox.runner,
      concurrency,
      retries,
      signal: controller.signal,
      events: { finished: (_job, r) => log(`${pc.dim("trial")} ${r.trialId}  ${summary(r)}`) },
    });
    const info = agentInfoOf(agent);
    records = await engine.runAll(
      Array.from({ length: n }, (_, index) => ({ task, condition, agent: info, index })),
    );
  } finally {
    dispose();
    await sandbox.close();
  }

  const file = relativeToProject(ctx.paths, trialsFileOf(runDir));
  if (options.json) {
    ctx.stdout.write(
      `${JSON.stringify({ runId, runDir, trialsFile: path.resolve(trialsFileOf(runDir)), records }, null, 2)}\n`,
    );
  } else {
    ctx.stdout.write(`run ${runId}: ${records.length} trial(s) recorded in ${file}\n`);
    for (const r of records) ctx.stdout.write(`  ${r.trialId}  ${summary(r)}\n`);
  }
  if (engine.internal.length > 0) throw new InternalTrialErrors(engine.internal);
  const reason = controller.signal.reason;
  if (reason instanceof InterruptedError) return reason.exitCode;
  return records.some((r) => outcomeOf(r) === "infra") ? EXIT_FAILED : EXIT_OK;
}
