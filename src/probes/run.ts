// How a probe runs its units on the one engine: a probe run's settings (probe.json, refused on resume
// when the task, a configuration or n changed), inline trials as units (concurrency, per-provider
// limits, retries by failure kind, cancellation), and the latest attempt of each slot read back from
// disk, so a resume runs only the slots whose latest attempt did not count.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import type { ProjectPaths } from "../project.ts";
import { outcomeOf, type TrialRecord } from "../record/index.ts";
import type { Condition, LoadedTask } from "../task/index.ts";
import {
  configuredPhaseBounds,
  crashRecordOf,
  type EngineUnit,
  type InlineTrialResult,
  type RunPlace,
  readTrialRecords,
  runInlineTrial,
  trialId,
  UnitEngine,
  type UnitKind,
} from "../trial/index.ts";
import { inlineWork, type ProbeAdmit, probeAdmit } from "./cost.ts";
import type { ProbeAgent } from "./models.ts";

export interface ProbeRun {
  paths: ProjectPaths;
  runId: string;
  runDir: string;
  kgateVersion: string;
  maxEnvironmentBytes?: number;
  /** Units in flight at once (default 1). */
  concurrency: number;
  providerLimits?: Readonly<Record<string, number>>;
  /** Extra attempts of a unit whose attempt ended in a retried failure kind (default 1). */
  retries?: number;
  /** Ctrl-C: no unit starts after it; running ones end as cancelled (a resume runs them again). */
  signal?: AbortSignal;
  onRecord?: (record: TrialRecord) => void;
  /** May this unit start? (--max-cost's reservation, probes/cost.ts); a refused one has no record. */
  admit?: ProbeAdmit;
}

export const PROBE_RUN_FILE = "probe.json";

/** What a probe run was started with: a resume must ask the same. */
export const ProbeSettings = z.object({
  probe: z.enum(["recite", "canary", "compress"]),
  task: z.object({ id: z.string(), digest: z.string() }),
  agents: z.array(z.object({ name: z.string(), digest: z.string() })),
  n: z.number().int().positive(),
  maxEnvironmentBytes: z.number().int().positive().nullable(),
  kgateVersion: z.string(),
});
export type ProbeSettings = z.infer<typeof ProbeSettings>;

/** Writes probe.json for a new run, or checks a resumed run's against it (a changed input is refused). */
export function settleProbeRun(runDir: string, settings: ProbeSettings, resume: boolean): void {
  const file = path.join(runDir, PROBE_RUN_FILE);
  if (!resume) {
    if (existsSync(file)) throw new Error(`${file} exists: resume the run with --resume`);
    mkdirSync(runDir, { recursive: true });
    writeFileSync(file, `${JSON.stringify(settings, null, 2)}\n`);
    return;
  }
  let was: ProbeSettings;
  try {
    was = ProbeSettings.parse(JSON.parse(readFileSync(file, "utf8")));
  } catch (err) {
    throw new Error(`${file}: cannot resume this run: ${(err as Error).message}`);
  }
  const same = (k: keyof ProbeSettings) =>
    k === "kgateVersion" || JSON.stringify(was[k]) === JSON.stringify(settings[k]);
  const changed = (Object.keys(settings) as Array<keyof ProbeSettings>).filter((k) => !same(k));
  if (changed.length > 0)
    throw new Error(
      `cannot resume ${path.basename(runDir)}: it was started with another ${changed.join(", ")} (${file}); start a new run`,
    );
}

/** One inline trial a probe wants: an agent, the conversation, the folder its records go to. */
export interface InlineSlot extends EngineUnit {
  agent: ProbeAgent;
  task: LoadedTask;
  condition: Condition;
  index: number;
  system: string;
  turns: readonly string[];
  /** Under +A: the bytes rendered in place of the artefact. */
  artefact?: Buffer;
  /** The run directory of its records (a compression arm has its own: trial ids repeat across arms). */
  dir: string;
}

type InlineJob = InlineSlot & RunPlace & { trialId: string; attempt: number };

const inlineKind: UnitKind<InlineSlot, InlineJob, InlineTrialResult> = {
  job: (slot, attempt, run) => ({
    ...slot,
    runId: run.runId,
    runDir: slot.dir,
    attempt,
    trialId: trialId(slot.task.id, slot.condition, slot.agent.config.name, slot.index, attempt),
  }),
  providerOf: (slot) => slot.agent.config.provider,
  errorOf: (r) => r.record.error,
  outcomeOf: (r) => outcomeOf(r.record),
  crashed: (job, err) => ({
    replies: [],
    record: crashRecordOf(
      job,
      "inline",
      {
        name: job.agent.config.name,
        digest: job.agent.config.digest,
        harness: "inline",
        model: job.agent.config.model,
      },
      err,
    ),
  }),
};

const slotKey = (agent: string, condition: string, index: number) => `${agent}|${condition}|${index}`;

/** The latest attempt of each slot (agent, condition, index) among a folder's inline records. */
export function latestInline(dir: string): Map<string, TrialRecord> {
  const latest = new Map<string, TrialRecord>();
  for (const r of readTrialRecords(dir).records) {
    if (r.form !== "inline") continue;
    const key = slotKey(r.agent.name, r.condition, r.index);
    if ((latest.get(key)?.attempt ?? 0) <= r.attempt) latest.set(key, r);
  }
  return latest;
}

/** The slot's latest record, from latestInline of its folder. */
export function latestOf(
  latest: ReadonlyMap<string, TrialRecord>,
  slot: InlineSlot,
): TrialRecord | undefined {
  return latest.get(slotKey(slot.agent.config.name, slot.condition, slot.index));
}

export interface UnitsRun<R> {
  /** Records of kgate's own errors (`internal`): the command reports them and fails. */
  internal: R[];
  cancelled: boolean;
}

/**
 * Runs the slots whose latest attempt (on disk) did not count, through the engine; `after` sees each
 * attempt as it ends (a probe's own line), before the next starts.
 */
export async function runInlineSlots(
  run: ProbeRun,
  slots: readonly InlineSlot[],
  after?: (job: InlineJob, result: InlineTrialResult) => void,
): Promise<UnitsRun<TrialRecord>> {
  const latest = new Map<string, Map<string, TrialRecord>>();
  const todo = slots.flatMap((slot) => {
    if (!latest.has(slot.dir)) latest.set(slot.dir, latestInline(slot.dir));
    const last = latestOf(latest.get(slot.dir)!, slot);
    if (last && outcomeOf(last) !== "infra") return [];
    return [{ ...slot, previousAttempt: last?.attempt ?? 0 }];
  });
  const phases = configuredPhaseBounds(run.paths);
  const engine = new UnitEngine({
    runId: run.runId,
    runDir: run.runDir,
    kind: inlineKind,
    concurrency: run.concurrency,
    providerLimits: run.providerLimits,
    retries: run.retries,
    signal: run.signal,
    admit: probeAdmit<InlineJob, InlineTrialResult>(
      run.admit,
      inlineWork(run),
      (r) => r.record.usage.costUsd,
    ),
    runner: async (job, signal) => {
      const result = await runInlineTrial({
        paths: run.paths,
        task: job.task,
        condition: job.condition,
        config: job.agent.config,
        model: job.agent.model,
        system: job.system,
        turns: job.turns,
        ...(job.artefact ? { artefact: job.artefact } : {}),
        runId: job.runId,
        runDir: job.runDir,
        index: job.index,
        attempt: job.attempt,
        phases,
        signal,
      });
      after?.(job, result);
      return result;
    },
    events: { finished: (_job, result) => run.onRecord?.(result.record) },
  });
  await engine.runAll(todo);
  return { internal: engine.internal.map((r) => r.record), cancelled: engine.cancelled };
}
