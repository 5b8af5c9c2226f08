// Test support for calibration: scaffolded tasks, agent infos, valid TrialRecords, and an
// in-process trial runner whose pass probability per cell is known and seeded.
import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { AgentInfo, CellJob, CellRunner, Plan, PlannedCell } from "../../src/calibrate/index.ts";
import type { ProjectPaths } from "../../src/project.ts";
import {
  type Attribution,
  type FailureKind,
  type TrialRecord,
  TrialRecord as TrialRecordSchema,
  trialError,
} from "../../src/record/index.ts";
import { type LoadedTask, loadTask, scaffoldTask } from "../../src/task/index.ts";
import { appendTrialRecord, trialId } from "../../src/trial/index.ts";

/** Scaffolds and loads tasks; each gets the scaffold's perturbed variant. */
export function scaffoldTasks(paths: ProjectPaths, ids: string[]): LoadedTask[] {
  return ids.map((id) => {
    scaffoldTask(paths, { id, gate: "convention", title: `Task ${id}`, domain: "testing" });
    const loaded = loadTask(paths, id);
    if (!loaded.ok) throw new Error(`fixture task ${id} does not load: ${JSON.stringify(loaded.errors)}`);
    return loaded.task;
  });
}

export function agentInfo(name: string, provider = "local", digest = `digest-of-${name}`): AgentInfo {
  return { name, digest, harness: "scripted", model: `${name}-model`, provider };
}

export function resolver(agents: Record<string, string> = { frontier: "anthropic", mid: "openai" }) {
  return (name: string): AgentInfo => {
    const provider = agents[name];
    if (!provider) throw new Error(`agent "${name}" is not configured`);
    return agentInfo(name, provider);
  };
}

export type Outcome = "pass" | "fail" | "infra" | "unverified";

export interface RecordOptions {
  outcome: Outcome;
  attribution?: Attribution | null;
  inputTokens?: number;
  outputTokens?: number;
  costUsd?: number | null;
  startedAt?: Date;
  durationMs?: number;
  trajectory?: string | null;
}

/** A TrialRecord for a job, valid per the schema (parsed before it is returned). */
export function recordFor(job: CellJob, o: RecordOptions): TrialRecord {
  const started = o.startedAt ?? new Date(Date.UTC(2026, 10, 30, 12, 0, 0) + job.index * 60_000);
  const finished = new Date(started.getTime() + (o.durationMs ?? 1500));
  const fail = o.outcome === "fail";
  const artefactDigest =
    job.cell.condition === "-A"
      ? null
      : job.cell.condition === "+A"
        ? job.task.digests.artefact
        : job.task.digests.variants[job.cell.condition.slice("variant:".length)]!;
  return TrialRecordSchema.parse({
    recordVersion: 2,
    runId: job.runId,
    trialId: job.trialId,
    index: job.index,
    attempt: job.attempt,
    task: {
      id: job.task.id,
      digests: {
        task: job.task.digests.task,
        instruction: job.task.digests.instruction,
        environment: job.task.digests.environment,
      },
    },
    condition: job.cell.condition,
    artefactDigest,
    fileSetDigest: "f".repeat(64),
    agent: {
      name: job.agent.name,
      digest: job.agent.digest,
      harness: job.agent.harness,
      model: job.agent.model,
    },
    startedAt: started.toISOString(),
    finishedAt: finished.toISOString(),
    phases: {},
    usage: {
      inputTokens: o.inputTokens ?? 1000,
      outputTokens: o.outputTokens ?? 200,
      modelCalls: 3,
      costUsd: o.costUsd === undefined ? 0.01 : o.costUsd,
    },
    stopReason: o.outcome === "infra" ? "error" : "finish",
    outputs: [],
    verdict:
      o.outcome === "unverified"
        ? {
            status: "unverified",
            reward: 0,
            score: 0,
            criteria: [],
            attribution: null,
            reason: "no verifier ran",
          }
        : {
            status: o.outcome === "pass" ? "pass" : "fail",
            reward: o.outcome === "pass" ? 1 : 0,
            score: o.outcome === "pass" ? 1 : 0,
            criteria: [],
            attribution: fail ? (o.attribution === undefined ? "default-convention" : o.attribution) : null,
          },
    error: o.outcome === "infra" ? trialError("sandbox-unavailable", "the daemon went away") : null,
    trajectory: o.trajectory === undefined ? `trials/${job.trialId}/trajectory.jsonl` : o.trajectory,
  });
}

/** A uniform number in [0, 1) from a seed and a key: the same trial draws the same number in any order. */
export function draw(seed: number, key: string): number {
  const h = createHash("sha256").update(`${seed}:${key}`).digest();
  return h.readUInt32BE(0) / 2 ** 32;
}

export interface FakeRunnerOptions {
  /** Pass probability of a cell, by label (e.g. `frontier+A`); unlisted cells never pass. */
  pass: Record<string, number>;
  seed?: number;
  /** Exact outcomes by cell label, one letter per trial index: P pass, F fail (overrides `pass`). */
  script?: Record<string, string>;
  /** Probability that an attempt ends in an infrastructure error. */
  infra?: number;
  /** Its kind (default `sandbox-unavailable`, which the taxonomy retries). */
  infraKind?: FailureKind;
  delayMs?: number;
  /** Called as each trial starts (to observe concurrency). */
  onStart?: (job: CellJob) => void;
  onEnd?: (job: CellJob) => void;
}

/** Runs no container: draws an outcome, writes the trajectory and appends the record line; a cancelled
 * attempt is recorded as cancelled, as runTrial records it. */
export function fakeRunner(o: FakeRunnerOptions): CellRunner {
  const seed = o.seed ?? 1;
  return async (job, signal) => {
    o.onStart?.(job);
    try {
      if (o.delayMs) {
        const cancelled = await new Promise<boolean>((resolve) => {
          const onAbort = () => {
            clearTimeout(timer);
            resolve(true);
          };
          const timer = setTimeout(() => {
            signal.removeEventListener("abort", onAbort);
            resolve(false);
          }, o.delayMs);
          signal.addEventListener("abort", onAbort, { once: true });
        });
        if (cancelled) {
          const record = recordFor(job, { outcome: "infra", trajectory: null });
          record.error = trialError("cancelled", "the run was cancelled");
          record.stopReason = "cancelled";
          appendTrialRecord(job.runDir, record);
          return record;
        }
      }
      const key = `${job.cell.key}#${job.index}`;
      const infra = o.infra !== undefined && draw(seed, `${key}@${job.attempt}:infra`) < o.infra;
      const scripted = o.script?.[job.cell.label]?.[job.index];
      const pass = scripted ? scripted === "P" : draw(seed, key) < (o.pass[job.cell.label] ?? 0);
      const attribution: Attribution = job.cell.condition.startsWith("variant:")
        ? `perturbed-convention:${job.cell.condition.slice(8)}`
        : "default-convention";
      const record = recordFor(job, { outcome: infra ? "infra" : pass ? "pass" : "fail", attribution });
      if (infra && o.infraKind) record.error = trialError(o.infraKind, record.error!.message);
      mkdirSync(path.dirname(path.join(job.runDir, record.trajectory!)), { recursive: true });
      writeFileSync(
        path.join(job.runDir, record.trajectory!),
        `${JSON.stringify({ type: "note", text: "fake" })}\n`,
      );
      appendTrialRecord(job.runDir, record);
      return record;
    } finally {
      o.onEnd?.(job);
    }
  };
}

/** The job the engine would build for a planned cell's trial. */
export function jobFor(
  plan: Plan,
  tasks: ReadonlyMap<string, LoadedTask>,
  cell: PlannedCell,
  index: number,
  attempt = 1,
  runDir = "/nonexistent",
): CellJob {
  const agent = plan.agents.find((a) => a.name === cell.agent)!;
  return {
    runId: plan.runId,
    runDir,
    trialId: trialId(cell.task, cell.condition, cell.agent, index, attempt),
    task: tasks.get(cell.task)!,
    cell,
    agent,
    condition: cell.condition,
    index,
    attempt,
  };
}

/**
 * Records from outcome strings per cell label and task: P pass, F fail, I infra, U unverified,
 * D fail on the default convention, X fail on the perturbed convention, M format failure.
 */
export function recordsFromScript(
  plan: Plan,
  tasks: ReadonlyMap<string, LoadedTask>,
  script: Record<string, Record<string, string>>,
): TrialRecord[] {
  const out: TrialRecord[] = [];
  for (const cell of plan.cells) {
    const letters = script[cell.task]?.[cell.label] ?? "";
    [...letters].forEach((letter, index) => {
      const job = jobFor(plan, tasks, cell, index);
      const variant = cell.condition.startsWith("variant:") ? cell.condition.slice(8) : "perturbed";
      const options: Record<string, RecordOptions> = {
        P: { outcome: "pass" },
        F: { outcome: "fail", attribution: "other" },
        D: { outcome: "fail", attribution: "default-convention" },
        X: { outcome: "fail", attribution: `perturbed-convention:${variant}` },
        M: { outcome: "fail", attribution: "format" },
        I: { outcome: "infra" },
        U: { outcome: "unverified" },
      };
      const o = options[letter];
      if (!o) throw new Error(`unknown outcome letter ${letter}`);
      out.push(recordFor(job, o));
    });
  }
  return out;
}
