// The real trial machinery for calibration: agent configurations resolved by name, the sandbox
// image built or found once, containers of dead runs reaped, each agent prepared once per session,
// and every trial run by the trial runner (fresh hardened container, verification, one record).

import { BuiltinAgent, InstalledAgent, resolveAgent } from "../agents/index.ts";
import type { Agent, SandboxRequirements } from "../agents/types.ts";
import type { ProjectPaths } from "../project.ts";
import { ensureSandboxImage, reapDeadRuns } from "../sandbox/index.ts";
import { runTrial, type TrialOptions, type VerifyTrial } from "../trial/index.ts";
import type { AgentInfo } from "./plan.ts";
import type { Backend } from "./session.ts";

/** Trials of one provider share its concurrency limit; agents without a model provider (oracle, noop) run locally. */
export function providerOf(agent: Agent): string {
  return agent instanceof BuiltinAgent || agent instanceof InstalledAgent ? agent.config.provider : "local";
}

export function agentInfoOf(agent: Agent): AgentInfo {
  return {
    name: agent.name,
    digest: agent.digest,
    harness: agent.harness,
    model: agent.model,
    provider: providerOf(agent),
  };
}

export interface DockerBackendOptions {
  paths: ProjectPaths;
  /** Verification of each trial's outputs; without it verdicts are `unverified` (left out of rates). */
  verify?: VerifyTrial;
  log?: (line: string) => void;
  /** Follow-up turns after each trial's agent (the monitoring probes of `--monitor`). */
  followUp?: TrialOptions["followUp"];
}

export function dockerBackend(o: DockerBackendOptions): Backend {
  const log = o.log ?? (() => {});
  const instances = new Map<string, Agent>();
  const agentNamed = async (name: string): Promise<Agent | undefined> => {
    if (!instances.has(name)) {
      try {
        instances.set(name, await resolveAgent(o.paths, name, { log }));
      } catch (err) {
        // An unknown name is the caller's to report; a broken configuration file is not.
        if (/^unknown agent /.test((err as Error).message)) return undefined;
        throw err;
      }
    }
    return instances.get(name);
  };
  return {
    async agents(names) {
      const out = new Map<string, AgentInfo>();
      for (const name of names) {
        const agent = await agentNamed(name);
        if (agent) out.set(name, agentInfoOf(agent));
      }
      return out;
    },
    async start(plan) {
      const reaped = await reapDeadRuns();
      if (reaped.removed.length > 0) {
        log(`removed ${reaped.removed.length} container(s) left by kgate processes that are gone`);
      }
      const image = await ensureSandboxImage(o.paths, { onProgress: (line) => log(`sandbox: ${line}`) });
      const prepared = new Map<string, SandboxRequirements>();
      const used: Agent[] = [];
      try {
        for (const info of plan.agents) {
          const agent = (await agentNamed(info.name))!;
          used.push(agent);
          prepared.set(info.name, (await agent.prepare?.()) ?? {});
        }
      } catch (err) {
        await Promise.allSettled(used.map((a) => a.dispose?.()));
        throw err;
      }
      return {
        runner: (job, signal) =>
          runTrial({
            paths: o.paths,
            task: job.task,
            condition: job.cell.condition,
            agent: instances.get(job.agent.name)!,
            runId: job.runId,
            runDir: job.runDir,
            index: job.index,
            attempt: job.attempt,
            image,
            requirements: prepared.get(job.agent.name),
            verify: o.verify,
            followUp: o.followUp,
            signal,
          }),
        stop: async () => {
          await Promise.allSettled(used.map((a) => a.dispose?.()));
          // Sweep once more: a container whose create request a killed process had in flight can
          // appear after the first sweep.
          await reapDeadRuns().catch(() => undefined);
        },
      };
    },
  };
}
