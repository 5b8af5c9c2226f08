// The real trial machinery for calibration: agent configurations resolved by name and the sandbox
// runner of the trial engine (provider image once, each agent prepared once, runTrial per attempt).
import {
  type Agent,
  loadAgentConfigs,
  resolveAgent,
  resolveApiKey,
  unansweredEndpoints,
  unansweredMessage,
} from "../agents/index.ts";
import { type ProjectPaths, relativeToProject } from "../project.ts";
import { type SandboxProvider, sandboxProviderFor } from "../sandbox/index.ts";
import { agentInfoOf, openSandboxRunner, type TrialOptions, type VerifyTrial } from "../trial/index.ts";
import type { AgentInfo } from "./plan.ts";
import type { Backend, MissingKey } from "./session.ts";

export interface SandboxBackendOptions {
  paths: ProjectPaths;
  /** Verification of each trial's outputs; null: verdicts are `unverified` (left out of rates). */
  verify?: VerifyTrial | null;
  log?: (line: string) => void;
  /** Follow-up turns after each trial's agent (the monitoring questions of `--monitor`). */
  followUp?: TrialOptions["followUp"];
  /** The prospective choice before each -A trial, per agent (`--prospective`); undefined: not asked. */
  prospectiveFor?: (agent: Agent) => TrialOptions["prospective"];
  /** false (--no-ping): no endpoint ping before the first trial. */
  ping?: boolean;
}

export function sandboxBackend(o: SandboxBackendOptions): Backend {
  const log = o.log ?? (() => {});
  const instances = new Map<string, Agent>();
  let provider: SandboxProvider | undefined;
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
    async missingKeys(names) {
      const configs = loadAgentConfigs(o.paths).agents;
      const missing: MissingKey[] = [];
      for (const name of names) {
        const config = configs.find((c) => c.name === name);
        if (config?.apiKeyEnv && resolveApiKey(config) === undefined) {
          missing.push({ agent: name, env: config.apiKeyEnv });
        }
      }
      return missing;
    },
    async ping(names) {
      if (o.ping === false) return null;
      const unanswered = await unansweredEndpoints(o.paths, names);
      if (unanswered.length === 0) return null;
      return unansweredMessage(relativeToProject(o.paths, o.paths.config), unanswered);
    },
    async sandbox() {
      provider ??= sandboxProviderFor(o.paths);
      const image = await provider.prepareImage(o.paths, (line) => log(`sandbox: ${line}`));
      return { provider: provider.name, host: provider.host, image: image.id, base: image.base };
    },
    async start(plan) {
      const agents = await Promise.all(plan.agents.map(async (info) => (await agentNamed(info.name))!));
      provider ??= sandboxProviderFor(o.paths);
      const sandbox = await openSandboxRunner({
        paths: o.paths,
        agents,
        provider,
        verify: o.verify,
        log,
        followUp: o.followUp,
        prospectiveFor: o.prospectiveFor,
      });
      return { runner: sandbox.runner, stop: sandbox.close };
    },
  };
}
