// The session form of the trial lifecycle: several tasks in one sandbox (an exam's shared sandbox),
// each in its own folder, one agent session over all of them; every process stopped before each
// task's outputs are copied out of its folder, each task verified by its own verifier, and one record
// (form "session") whose verdict combines theirs. runSessionTrial never throws.
import type { Agent } from "../agents/index.ts";
import type {
  Condition,
  PhaseBounds,
  SandboxRequirements,
  TrajectoryEvent,
  TrialRecord,
} from "../record/index.ts";
import { containerLabels, type PackFile, type SandboxImage, type SandboxProvider } from "../sandbox/index.ts";
import { diskMbOf, type Limits, type LoadedTask, sha256 } from "../task/index.ts";
import { agentPhase } from "./agent-phase.ts";
import { trialBudget } from "./budget.ts";
import {
  type FormEnv,
  type FormRun,
  type LifecycleForm,
  runLifecycle,
  type VerifyTarget,
} from "./lifecycle.ts";
import { sandboxDeadline, sandboxPhases, sandboxProvenance } from "./sandbox-phases.ts";
import type { VerifyTrial } from "./verify-phase.ts";

export interface SessionTaskPlace {
  task: LoadedTask;
  /** Its folder under the work directory (`task-<k>`): its files go there, its outputs come from there. */
  folder: string;
}

export interface SessionTrialOptions {
  runId: string;
  runDir: string;
  /** The attempt's id (the unit's key, `.retry<k>` on a retry). */
  trialId: string;
  index: number;
  attempt: number;
  agent: Agent;
  condition: Condition;
  tasks: readonly SessionTaskPlace[];
  /** The work directory's files, each task's under its folder. */
  files: () => PackFile[];
  /** The one instruction of the session. */
  instruction: string;
  /** The session's limits (its timeout is the agent's wall clock). */
  limits: Limits;
  /** The provider of the host the session was placed on (onPlacedHost: a pool reserves the slot first). */
  provider: SandboxProvider;
  image: SandboxImage;
  requirements?: SandboxRequirements;
  verify: VerifyTrial;
  signal?: AbortSignal;
  /** Phase bounds other than the defaults. */
  phases?: Partial<PhaseBounds>;
  /** Every trajectory event as it is written (an exam's effort attribution reads them). */
  onEvent?: (event: Omit<TrajectoryEvent, "at">) => void;
}

/** The largest of the tasks' limits (a shared sandbox), their turns and wall clocks added up. */
export function sessionLimits(tasks: readonly LoadedTask[], maxTokens: number): Limits {
  const limits = tasks.map((t) => t.spec.limits);
  const max = (f: (l: Limits) => number) => Math.max(...limits.map(f));
  const sum = (f: (l: Limits) => number) => limits.reduce((s, l) => s + f(l), 0);
  return {
    ...limits[0]!,
    cpus: max((l) => l.cpus),
    memoryMb: max((l) => l.memoryMb),
    pids: max((l) => l.pids),
    // one cap for the shared sandbox: the largest of the tasks' (tmpfs space is memory, sized like it)
    diskMb: max((l) => diskMbOf(l)),
    maxTokens,
    maxTurns: sum((l) => l.maxTurns),
    timeoutSec: sum((l) => l.timeoutSec),
  };
}

function sessionForm(o: SessionTrialOptions): LifecycleForm {
  return {
    name: "session",
    async execute(env: FormEnv): Promise<FormRun> {
      const declared = o.tasks.flatMap(({ task, folder }) =>
        task.spec.outputs.map((out) => ({ ...out, path: `${folder}/${out.path}` })),
      );
      const trajectory = {
        append(event: Omit<TrajectoryEvent, "at">) {
          o.onEvent?.(event);
          env.trajectory.append(event);
        },
      };
      const ref = o.requirements?.image ?? o.image.ref;
      const run = await sandboxPhases(env, {
        provider: o.provider,
        spec: {
          image: ref,
          limits: o.limits,
          network: false,
          labels: containerLabels({ runId: o.runId, trialId: o.trialId, taskId: "session" }),
          ...(o.requirements ? { requirements: o.requirements } : {}),
          ...sandboxDeadline(env),
        },
        files: o.files,
        outputs: declared,
        agent: (sandbox) =>
          agentPhase({
            agent: o.agent,
            signal: env.signal,
            context: {
              instruction: o.instruction,
              sandbox,
              budget: env.budget,
              condition: o.condition,
              artefact: null,
              task: o.tasks[0]!.task,
              trajectory,
            },
          }),
      });
      let at = 0;
      const targets: VerifyTarget[] = o.tasks.map(({ task, folder }) => ({
        task,
        folder,
        outputs: task.spec.outputs.map((out) => {
          const file = run.files[at++];
          return file
            ? { path: out.path, status: file.record.status, bytes: file.bytes, reason: file.record.reason }
            : { path: out.path, status: "missing" as const, reason: "not collected" };
        }),
      }));
      return {
        ...run,
        targets,
        fileSet: null,
        provenance: sandboxProvenance(
          o.provider,
          o.image,
          o.requirements,
          o.agent.revision ?? o.agent.harness,
          o.limits.diskMb ?? diskMbOf(o.limits),
        ),
        placed: o.condition,
        prospective: null,
      };
    },
  };
}

/** A session's task as a record names it: `session`, with digests over its tasks' own. */
function sessionTask(tasks: readonly SessionTaskPlace[], instruction: string): TrialRecord["task"] {
  const over = (f: (t: LoadedTask) => string) =>
    sha256(tasks.map(({ task }) => `${task.id}:${f(task)}`).join("\n"));
  return {
    id: "session",
    digests: {
      task: over((t) => t.digests.task),
      instruction: sha256(instruction),
      environment: over((t) => t.digests.environment),
    },
  };
}

/** Runs one session and appends its record to runDir/trials.jsonl; errors are recorded, never thrown. */
export function runSessionTrial(o: SessionTrialOptions): Promise<TrialRecord> {
  return runLifecycle({
    identity: {
      runId: o.runId,
      runDir: o.runDir,
      trialId: o.trialId,
      index: o.index,
      attempt: o.attempt,
      task: sessionTask(o.tasks, o.instruction),
      condition: o.condition,
      form: "session",
      agent: { name: o.agent.name, digest: o.agent.digest, harness: o.agent.harness, model: o.agent.model },
    },
    form: sessionForm(o),
    verify: o.verify,
    budget: trialBudget({ limits: o.limits, agent: o.agent.limits, phases: o.phases, sandbox: true }),
    signal: o.signal,
  });
}
