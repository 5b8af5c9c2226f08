// The sandbox form of the trial lifecycle: a fresh hardened sandbox from the provider, the
// condition's file set in (or, when a -A agent asked for the specification, the +A set), the agent,
// every process stopped, the declared outputs out, the sandbox removed; verified and recorded by
// the lifecycle. runTrial never throws: whatever fails is the record's error.
import type { Agent, AgentRunContext } from "../agents/index.ts";
import type { ProjectPaths } from "../project.ts";
import {
  type Condition,
  type PhaseBounds,
  type ProspectiveOutcome,
  type SandboxRequirements,
  type TrialBudget,
  type TrialRecord,
  UNVERIFIED,
  type Verdict,
} from "../record/index.ts";
import { containerLabels, type SandboxImage, type SandboxProvider } from "../sandbox/index.ts";
import { conditionFileSet, diskMbOf, type LoadedTask } from "../task/index.ts";
import { agentPhase } from "./agent-phase.ts";
import { trialBudget } from "./budget.ts";
import { trialId } from "./ids.ts";
import { type FormEnv, type FormRun, type LifecycleForm, runLifecycle } from "./lifecycle.ts";
import { NO_AGENT, recordTask } from "./record-parts.ts";
import { sandboxDeadline, sandboxPhases, sandboxProvenance } from "./sandbox-phases.ts";
import { defaultVerify, type VerifyTrial } from "./verify-phase.ts";

export interface TrialOptions {
  paths: ProjectPaths;
  task: LoadedTask;
  condition: Condition;
  agent: Agent;
  runId: string;
  /** runs/<run-id>: trials.jsonl and trials/<trialId>/ go here. */
  runDir: string;
  /** 0-based index of the trial within its cell. */
  index: number;
  /** 1 for the first attempt; retries count up. */
  attempt?: number;
  provider: SandboxProvider;
  /** The sandbox image on that provider (SandboxProvider.prepareImage). */
  image: SandboxImage;
  /** What the agent's prepare() asked for (derived image, env, writable folders). */
  requirements?: SandboxRequirements;
  /** null: no verification (verdict `unverified`, left out of rates). */
  verify?: VerifyTrial | null;
  /** Cancels the trial (recorded as `cancelled`, never as the agent's failure). */
  signal?: AbortSignal;
  /** Phase bounds other than the defaults (kgate.config.json `trial.phaseBoundsSec`, tests). */
  phases?: Partial<PhaseBounds>;
  /** Follow-up turns after the agent (monitoring questions); recorded in the record's `monitor`. */
  followUp?: AgentRunContext["followUp"];
  /** Before a -A trial, the prospective choice: REQUEST_SPEC places the artefact, DECLINE runs nothing. */
  prospective?: (
    task: LoadedTask,
    budget: TrialBudget,
    signal?: AbortSignal,
  ) => Promise<Omit<ProspectiveOutcome, "artefactPlaced" | "placedDigest">>;
}

const DECLINED: Verdict = { ...UNVERIFIED, reason: "declined before the trial (prospective choice)" };

/** Before a -A trial, the agent's choice: REQUEST_SPEC places the artefact (as +A), DECLINE runs nothing. */
async function choosePlacement(
  o: TrialOptions,
  budget: TrialBudget,
): Promise<{ placed: Condition; prospective: ProspectiveOutcome | null }> {
  if (o.condition !== "-A" || !o.prospective) return { placed: o.condition, prospective: null };
  const chosen = await o.prospective(o.task, budget, o.signal);
  const placed: Condition = chosen.choice === "REQUEST_SPEC" ? "+A" : "-A";
  return { placed, prospective: { ...chosen, artefactPlaced: placed === "+A", placedDigest: null } };
}

/** The sandboxed agent trial as a form of the lifecycle. */
export function sandboxForm(o: TrialOptions): LifecycleForm {
  return {
    name: "sandbox",
    async execute(env: FormEnv): Promise<FormRun> {
      const { task } = o;
      const { placed, prospective } = await choosePlacement(o, env.budget);
      const fileSet = conditionFileSet(task, placed);
      if (prospective?.artefactPlaced) prospective.placedDigest = fileSet.artefactDigest;
      const provenance = sandboxProvenance(
        o.provider,
        o.image,
        o.requirements,
        o.agent.revision ?? o.agent.harness,
        diskMbOf(task.spec.limits),
      );
      const base = { fileSet, provenance, placed, prospective };
      if (prospective?.choice === "DECLINE")
        return {
          ...base,
          outcome: { ...NO_AGENT, stopReason: "finish" },
          files: [],
          // nothing to verify (the verdict is given), but the -A canary is still looked for
          targets: [{ task, folder: null, outputs: [] }],
          error: null,
          verdict: DECLINED,
        };
      const run = await sandboxPhases(env, {
        provider: o.provider,
        spec: {
          image: o.requirements?.image ?? o.image.ref,
          limits: task.spec.limits,
          network: task.spec.network,
          labels: containerLabels({ runId: o.runId, trialId: env.identity.trialId, taskId: task.id }),
          requirements: o.requirements,
          ...sandboxDeadline(env),
        },
        files: () => fileSet.files.map((f) => ({ path: f.path, bytes: f.read() })),
        outputs: task.spec.outputs,
        agent: (sandbox) =>
          agentPhase({
            agent: o.agent,
            signal: env.signal,
            context: {
              instruction: task.instruction.toString("utf8"),
              sandbox,
              budget: env.budget,
              condition: placed,
              artefact:
                placed === "-A"
                  ? null
                  : { path: task.spec.artefact.path, description: task.spec.artefact.description },
              task,
              trajectory: env.trajectory,
              ...(o.followUp ? { followUp: o.followUp } : {}),
            },
          }),
      });
      const outputs = run.files.map((f) => ({
        path: f.record.path,
        status: f.record.status,
        bytes: f.bytes,
        reason: f.record.reason,
      }));
      return { ...base, ...run, targets: [{ task, folder: null, outputs }] };
    },
  };
}

/** Runs one sandboxed trial and appends its record to runDir/trials.jsonl; errors are recorded, never thrown. */
export function runTrial(o: TrialOptions): Promise<TrialRecord> {
  const attempt = o.attempt ?? 1;
  return runLifecycle({
    identity: {
      runId: o.runId,
      runDir: o.runDir,
      trialId: trialId(o.task.id, o.condition, o.agent.name, o.index, attempt),
      index: o.index,
      attempt,
      task: recordTask(o.task),
      condition: o.condition,
      form: "sandbox",
      agent: { name: o.agent.name, digest: o.agent.digest, harness: o.agent.harness, model: o.agent.model },
    },
    form: sandboxForm(o),
    verify: o.verify === null ? null : (o.verify ?? defaultVerify(o.paths)),
    budget: trialBudget({
      limits: o.task.spec.limits,
      agent: o.agent.limits,
      phases: o.phases,
      sandbox: true,
    }),
    signal: o.signal,
  });
}
