// The library's trials: the CLI's `kgate run` as a function. N trials of one task, condition and
// agent in the project's sandbox, each recorded in runs/<id>/trials.jsonl, with an event per
// finished trial and an AbortSignal that cancels them; and a run's records read back, schema-checked.
import { resolveAgent } from "../agents/index.ts";
import { runSettingDefault } from "../common/index.ts";
import type { Condition, TrialRecord } from "../record/index.ts";
import { conditionFileSet, parseCondition } from "../task/index.ts";
import {
  agentInfoOf,
  newRunId,
  openSandboxRunner,
  readTrialRecords,
  runDirOf,
  TrialEngine,
} from "../trial/index.ts";
import { loadTask, type Project } from "./project.ts";

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
  signal?: AbortSignal;
  /** Each finished trial's record, as it is written. */
  onTrial?: (record: TrialRecord) => void;
  /** Sandbox and agent set-up messages. */
  onProgress?: (line: string) => void;
}

export interface TrialsResult {
  runId: string;
  runDir: string;
  records: TrialRecord[];
}

/** Runs n trials of one cell; a record per trial, infrastructure failures included. */
export async function runTrials(project: Project, o: RunTrialsOptions): Promise<TrialsResult> {
  const { paths } = project;
  const task = loadTask(project, o.task);
  const condition: Condition = parseCondition(o.condition);
  conditionFileSet(task, condition); // an unknown variant fails here, before a sandbox starts
  const log = o.onProgress ?? (() => {});
  const agent = await resolveAgent(paths, o.agent, { log });
  const sandbox = await openSandboxRunner({ paths, agents: [agent], log });
  const runId = o.runId ?? newRunId();
  const runDir = runDirOf(paths, runId);
  try {
    const engine = new TrialEngine({
      runId,
      runDir,
      runner: sandbox.runner,
      concurrency: o.concurrency ?? runSettingDefault("concurrency", "run"),
      retries: o.retries ?? runSettingDefault("retries", "run"),
      signal: o.signal,
      events: { finished: (_job, record) => o.onTrial?.(record) },
    });
    const info = agentInfoOf(agent);
    const jobs = Array.from({ length: o.n ?? 1 }, (_, index) => ({ task, condition, agent: info, index }));
    return { runId, runDir, records: await engine.runAll(jobs) };
  } finally {
    await sandbox.close();
  }
}

/** A run folder's trial records; `problems` names each unreadable line (a torn last line, a bad field). */
export function readRecords(runDir: string): { records: TrialRecord[]; problems: string[] } {
  const read = readTrialRecords(runDir);
  return { records: read.records, problems: read.problems.map((p) => `line ${p.line}: ${p.message}`) };
}
