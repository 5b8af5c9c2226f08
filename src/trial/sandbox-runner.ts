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
  /**
   * Prepares one more agent on this runner, once per configuration (its name and digest), e.g. a
   * configuration changed for one trial; its trials name it by agentInfoOf(agent). Resolves with what
   * its sandbox needs (a form other than runTrial's, e.g. an exam session, places it by that).
   */
  add(agent: Agent): Promise<SandboxRequirements>;
  /** Disposes every agent once and sweeps once more. */
  close(): Promise<void>;
}

/** An agent's configuration as the runner keys it: a name may come with several digests. */
const keyOf = (agent: { name: string; digest: string }) => `${agent.name}\u0000${agent.digest}`;

/** Prepares the provider's image and every agent; if any preparation fails, what was prepared is released. */
export async function openSandboxRunner(o: SandboxRunnerOptions): Promise<SandboxRunner> {
  const log = o.log ?? (() => {});
  const phases = { ...configuredPhaseBounds(o.paths), ...o.phases };
  const provider = o.provider ?? sandboxProviderFor(o.paths);
  const reaped = sandboxesRemoved((await reapLeftovers(provider)).hosts);
  if (reaped > 0) log(`removed ${reaped} sandbox(es) left by kgate processes that are gone`);
  const image = await provider.prepareImage(o.paths, (line) => log(`sandbox: ${line}`));
  const prepared = new Map<string, Promise<SandboxRequirements>>();
  const byKey = new Map<string, Agent>();
  const used: Agent[] = [];
  const limits = new AdaptiveLimits((level, key) => log(levelLine(level, key)));
  const close = async () => {
    await Promise.allSettled(used.map((a) => a.dispose?.()));
    // A container whose create request was in flight when a process died can appear after a sweep.
    await reapLeftovers(provider).catch(() => null);
  };
  const add = async (agent: Agent) => {
    const key = keyOf(agent);
    if (!prepared.has(key)) {
      byKey.set(key, agent);
      used.push(agent);
      prepared.set(key, agent.prepare?.({ provider, limits }).then((r) => r ?? {}) ?? Promise.resolve({}));
    }
    return (await prepared.get(key))!;
  };
  try {
    for (const agent of o.agents) await add(agent);
  } catch (err) {
    await close();
    throw err;
  }
  const runner: TrialRunner = async (job, signal) => {
    const agent = byKey.get(keyOf(job.agent));
    if (!agent) throw new Error(`no agent "${job.agent.name}" was prepared for this run`);
    const requirements = await prepared.get(keyOf(job.agent));
    // A pool of hosts reserves the trial's slot (and loads its image there) before the trial's clock starts.
    const ref = requirements?.image ?? image.ref;
    return onPlacedHost(provider, [ref], signal, (placed) =>
      runTrialOn(job, signal, agent, placed, requirements),
    );
  };
  const runTrialOn = (
    job: Parameters<TrialRunner>[0],
    signal: AbortSignal,
    agent: Agent,
    placed: SandboxProvider,
    requirements: SandboxRequirements | undefined,
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
      requirements,
      verify: o.verify,
      phases,
      followUp: o.followUp,
      prospective: o.prospectiveFor ? o.prospectiveFor(agent) : o.prospective,
      signal,
    });
  return { runner, provider, image, add, close };
}
