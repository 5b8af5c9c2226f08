// The library's trials: the CLI's `kgate run` as a function. N trials of one task, condition and
// agent in the project's sandbox, each recorded in runs/<id>/trials.jsonl, with an event per
// finished trial and an AbortSignal that cancels them; and a run's records read back, schema-checked.
import { BuiltinAgent, InstalledAgent, resolveAgent } from "../agents/index.ts";
import { runSettingDefault } from "../common/index.ts";
import { UsageError, usageOrBug } from "../errors.ts";
import { askRetrospectiveQuestions, type PayoffSchedule, prospectiveHook } from "../monitor/index.ts";
import type { Condition, TrialRecord } from "../record/index.ts";
import { conditionFileSet, type LoadedTask, loadValidTask, parseCondition } from "../task/index.ts";
import {
  agentInfoOf,
  newRunId,
  openSandboxRunner,
  readTrialRecords,
  runDirOf,
  TrialEngine,
} from "../trial/index.ts";
import { sweepAfterAbort } from "./abort.ts";
import { pingBeforeTrials } from "./ping.ts";
import type { Project } from "./project.ts";

/** Where a progress line comes from: the agent's set-up, the sandbox's, or the run itself. */
export type ProgressSource = "agent" | "sandbox" | "run";

export interface RunTrialsOptions {
  task: string;
  /** An agent configuration of kgate.config.json, or the built-in `oracle` / `noop`. */
  agent: string;
  /** `+A`, `-A`, `perturbed`, or `variant:<name>`. */
  condition: string;
  /** Trials (default 1). */
  n?: number;
  /** Trials at once (default 1). */
  concurrency?: number;
  /** Infrastructure retries per trial (default 1). */
  retries?: number;
  runId?: string;
  /** Abort: no new trial starts, running ones end as cancelled; the run's sandboxes are removed. */
  signal?: AbortSignal;
  /** Each finished trial's record, as it is written. */
  onTrial?: (record: TrialRecord) => void;
  /** Set-up messages (agent, sandbox) and the run's own lines (what starts, warnings). */
  onProgress?: (line: string, source: ProgressSource) => void;
  /** Ask the retrospective monitoring questions after each trial (the CLI's --monitor). */
  monitor?: boolean;
  /** Before each -A trial, the prospective choice scored with this schedule (the CLI's --prospective). */
  prospective?: PayoffSchedule;
  /** false: no ping of the agent's endpoint before the first trial (default true). */
  ping?: boolean;
}

export interface TrialsResult {
  runId: string;
  runDir: string;
  records: TrialRecord[];
  /** The records of trials that stopped on an error of kgate itself (a bug to report; `error.stack`). */
  internalErrors: TrialRecord[];
  /** The signal stopped the run: trials not run or cut short are recorded as cancelled. */
  interrupted: boolean;
}

/** The task and the condition, checked before anything starts (an unknown variant included). */
function taskAndCondition(project: Project, o: RunTrialsOptions): { task: LoadedTask; condition: Condition } {
  try {
    const condition = parseCondition(o.condition);
    const task = loadValidTask(project.paths, o.task);
    conditionFileSet(task, condition);
    return { task, condition };
  } catch (err) {
    throw usageOrBug(err);
  }
}

/** The agent, its endpoint and the task's judges pinged, and the follow-up and prospective hooks the options ask for. */
async function agentOf(project: Project, task: LoadedTask, o: RunTrialsOptions, log: (line: string) => void) {
  const { paths } = project;
  const progress = o.onProgress ?? (() => {});
  const agent = await resolveAgent(paths, o.agent, { log: (line) => progress(line, "agent") }).catch(
    (err: unknown) => {
      throw usageOrBug(err);
    },
  );
  // The agent's endpoint and the judges the task's judge criteria name.
  if (o.ping !== false) await pingBeforeTrials(paths, [o.agent], [task]);
  if (o.monitor && !(agent instanceof BuiltinAgent) && !(agent instanceof InstalledAgent))
    log(
      `warning: --monitor: the questions need a model configuration (built-in loop or installed harness); ${agent.name} runs ${agent.harness}`,
    );
  let prospective: ReturnType<typeof prospectiveHook> | undefined;
  try {
    if (o.prospective) prospective = prospectiveHook(agent, o.prospective);
  } catch (err) {
    const e = usageOrBug(err);
    throw e instanceof UsageError ? new UsageError(`--prospective: ${e.message}`) : e;
  }
  return { agent, prospective };
}

/** Runs n trials of one cell; a record per trial, infrastructure failures and cancelled ones included. */
export async function runTrials(project: Project, o: RunTrialsOptions): Promise<TrialsResult> {
  const { paths } = project;
  const { task, condition } = taskAndCondition(project, o);
  const log = (line: string) => o.onProgress?.(line, "run");
  const { agent, prospective } = await agentOf(project, task, o, log);
  const sandbox = await openSandboxRunner({
    paths,
    agents: [agent],
    log: (line) => o.onProgress?.(line, "sandbox"),
    ...(o.monitor ? { followUp: askRetrospectiveQuestions } : {}),
    ...(prospective ? { prospective } : {}),
  });
  const runId = o.runId ?? newRunId();
  const runDir = runDirOf(paths, runId);
  const n = o.n ?? 1;
  const concurrency = o.concurrency ?? runSettingDefault("concurrency", "run");
  log(
    `run ${runId}: ${n} trial(s) of ${task.id} ${condition} with ${agent.name}, concurrency ${concurrency}`,
  );
  try {
    const engine = new TrialEngine({
      runId,
      runDir,
      runner: sandbox.runner,
      concurrency,
      retries: o.retries ?? runSettingDefault("retries", "run"),
      signal: o.signal,
      events: { finished: (_job, record) => o.onTrial?.(record) },
    });
    const info = agentInfoOf(agent);
    const jobs = Array.from({ length: n }, (_, index) => ({ task, condition, agent: info, index }));
    const records = await engine.runAll(jobs);
    return {
      runId,
      runDir,
      records,
      internalErrors: engine.internal,
      interrupted: o.signal?.aborted === true,
    };
  } finally {
    await sandbox.close();
    await sweepAfterAbort(paths, runId, o.signal, log);
  }
}

/** A run folder's trial records; `problems` names each unreadable line (a torn last line, a bad field). */
export function readRecords(runDir: string): { records: TrialRecord[]; problems: string[] } {
  const read = readTrialRecords(runDir);
  return { records: read.records, problems: read.problems.map((p) => `line ${p.line}: ${p.message}`) };
}
