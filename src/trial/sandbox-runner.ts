// The real trial machinery behind the engine: one sandbox provider, the sandbox image prepared once,
// orphans of dead runs swept, each agent prepared once on that provider (its derived image built
// there) and disposed once, every attempt by runTrial on the host its placement gives. The runner is a
// session: its agents share one adaptive limit per model provider, whose level changes it logs.
import { AdaptiveLimits, type Agent, BuiltinAgent, InstalledAgent, levelLine } from "../agents/index.ts";
import type { ProjectPaths } from "../project.ts";
import type { PhaseBounds, SandboxRequirements } from "../record/index.ts";
import {
  reapLeftovers,
  type SandboxImage,
  type SandboxProvider,
  sandboxesRemoved,
  sandboxProviderFor,
} from "../sandbox/index.ts";
import { configuredPhaseBounds } from "./budget.ts";
import { runTrial, type TrialOptions } from "./run-trial.ts";
import { onPlacedHost } from "./sandbox-phases.ts";
import type { EngineAgentInfo, TrialRunner } from "./trial-engine.ts";
import type { VerifyTrial } from "./verify-phase.ts";

/** Trials of one model provider share its limit; agents without one (oracle, noop) run as `local`. */
export function modelProviderOf(agent: Agent): string {
  return agent instanceof BuiltinAgent || agent instanceof InstalledAgent ? agent.config.provider : "local";
}

export function agentInfoOf(agent: Agent): EngineAgentInfo {
  return {
    name: agent.name,
    digest: agent.digest,
    harness: agent.harness,
    model: agent.model,
    provider: modelProviderOf(agent),
    revision: agent.revision ?? null,
  };
}

export interface SandboxRunnerOptions {
  paths: ProjectPaths;
  /** The agents trials may name, by name. */
  agents: readonly Agent[];
  /** Default: the provider kgate.config.json names (the local Docker daemon). */
  provider?: SandboxProvider;
  /** Default: the task's verifier in a killable worker; null: no verification. */
  verify?: VerifyTrial | null;
  /** Phase bounds over kgate.config.json's `trial.phaseBoundsSec` (tests). */
  phases?: Partial<PhaseBounds>;
  log?: (line: string) => void;
  /** The monitoring hooks of every trial: probes after the agent, the choice before a -A trial. */
  followUp?: TrialOptions["followUp"];
  prospective?: TrialOptions["prospective"];
  /** The choice per agent instead (a calibration's many agents); undefined: that agent is not asked. */
  prospectiveFor?: (agent: Agent) => TrialOptions["prospective"];
}

export interface SandboxRunner {
  runner: TrialRunner;
  provider: SandboxProvider;
  image: SandboxImage;
  /** Disposes every agent once and sweeps once more. */
  close(): Promise<void>;
}

/** Prepares the provider's image and every agent; if any preparation fails, what was prepared is released. */
export async function openSandboxRunner(o: SandboxRunnerOptions): Promise<SandboxRunner> {
  const log = o.log ?? (() => {});
  const phases = { ...configuredPhaseBounds(o.paths), ...o.phases };
  const provider = o.provider ?? sandboxProviderFor(o.paths);
  const reaped = sandboxesRemoved((await reapLeftovers(provider)).hosts);
  if (reaped > 0) log(`removed ${reaped} sandbox(es) left by kgate processes that are gone`);
  const image = await provider.prepareImage(o.paths, (line) => log(`sandbox: ${line}`));
  const prepared = new Map<string, SandboxRequirements>();
  const byName = new Map(o.agents.map((a) => [a.name, a]));
  const used: Agent[] = [];
  const limits = new AdaptiveLimits((level, key) => log(levelLine(level, key)));
  const close = async () => {
    await Promise.allSettled(used.map((a) => a.dispose?.()));
    // A container whose create request was in flight when a process died can appear after a sweep.
    await reapLeftovers(provider).catch(() => null);
  };
  try {
    for (const agent of byName.values()) {
      used.push(agent);
      prepared.set(agent.name, (await agent.prepare?.({ provider, limits })) ?? {});
    }
  } catch (err) {
    await close();
    throw err;
  }
  const runner: TrialRunner = async (job, signal) => {
    const agent = byName.get(job.agent.name);
    if (!agent) throw new Error(`no agent "${job.agent.name}" was prepared for this run`);
    // A pool of hosts reserves the trial's slot (and loads its image there) before the trial's clock starts.
    const ref = prepared.get(agent.name)?.image ?? image.ref;
    return onPlacedHost(provider, [ref], signal, (placed) => runTrialOn(job, signal, agent, placed));
  };
  const runTrialOn = (
    job: Parameters<TrialRunner>[0],
    signal: AbortSignal,
    agent: Agent,
    placed: SandboxProvider,
  ) =>
    runTrial({
      paths: o.paths,
      task: job.task,
      condition: job.condition,
      agent,
      runId: job.runId,
      runDir: job.runDir,
      index: job.index,
      attempt: job.attempt,
      provider: placed,
      image,
      requirements: prepared.get(agent.name),
      verify: o.verify,
      phases,
      followUp: o.followUp,
      prospective: o.prospectiveFor ? o.prospectiveFor(agent) : o.prospective,
      signal,
    });
  return { runner, provider, image, close };
}
