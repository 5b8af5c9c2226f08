// The agents concern's public face: the Agent interface, the built-in agents (oracle, noop), agent
// configurations from kgate.config.json (built-in tool loop, installed CLI harnesses behind the
// relay), trajectories, usage and error classification, and name resolution.
import type { ProjectPaths } from "../project.ts";
import { type ConfiguredAgentOptions, configuredAgentNames, findConfiguredAgent } from "./configured.ts";
import { type ResolvedAgentConfig, resolveApiKey } from "./load-config.ts";
import { noopAgent } from "./noop.ts";
import { oracleAgent } from "./oracle.ts";
import type { ChatModel } from "./providers/types.ts";
import type { Agent } from "./types.ts";

export { AdaptiveLimit, AdaptiveLimits, levelLine } from "./adaptive-limit.ts";
export { type PlacedArtefact, skillFile, skillName } from "./artefact.ts";
export { BuiltinAgent } from "./builtin.ts";
export * from "./config.ts";
export { type ConfiguredAgentOptions, createConfiguredAgent } from "./configured.ts";
export { asTrialError, classifyError, classifyStatus, type FailureClass, ModelCallError } from "./errors.ts";
export { BUILTIN_HARNESS_REVISION, INSTALLED_HARNESSES } from "./harnesses.ts";
export { ADAPTERS, claudeCode, codex } from "./installed/adapters.ts";
export { InstalledAgent } from "./installed/agent.ts";
export type { HarnessAdapter } from "./installed/harness-adapter.ts";
export { ensureHarnessImage, planHarnessImage } from "./installed/image.ts";
export { opencode } from "./installed/opencode.ts";
export * from "./judge/index.ts";
export { CallLedger } from "./ledger.ts";
export {
  type ConfigLoadResult,
  loadAgentConfigs,
  parseConfigText,
  type ResolvedAgentConfig,
  resolveAgentConfig,
  resolveApiKey,
} from "./load-config.ts";
export { noopAgent } from "./noop.ts";
export { oracleAgent, SOLUTION_DIR_IN_SANDBOX } from "./oracle.ts";
export {
  type Pinger,
  type UnansweredEndpoint,
  unansweredEndpoints,
  unansweredMessage,
  unansweredText,
} from "./ping-first.ts";
export { callCostUsd, dearestRates, ratesFor, reservationCostUsd } from "./pricing.ts";
export { modelsUrl, PING_TIMEOUT_MS, type PingResult, pingEndpoint } from "./providers/ping.ts";
export type * from "./providers/types.ts";
export { RELAY_PORT, Relay } from "./relay/server.ts";
export { retryLine, withRetry } from "./retry.ts";
export { artefactOpened, readTrajectory, TrajectoryRecorder } from "./trajectory.ts";
export * from "./types.ts";
export { UsageMeter } from "./usage.ts";

/** A ChatModel for a configuration, through its provider's SDK (loaded on this first use). */
export async function loadChatModel(
  config: Pick<ResolvedAgentConfig, "provider" | "model" | "baseUrl">,
  apiKey: string | null,
): Promise<ChatModel> {
  return (await import("./providers/index.ts")).createChatModel(config, apiKey);
}

const BUILTIN: Record<string, () => Agent> = { oracle: oracleAgent, noop: noopAgent };

export const BUILTIN_AGENT_NAMES = Object.keys(BUILTIN);

/** The agent called `name`: a built-in one (oracle, noop), else a configuration in kgate.config.json. */
export async function resolveAgent(
  paths: ProjectPaths,
  name: string,
  options: ConfiguredAgentOptions = {},
): Promise<Agent> {
  const make = Object.hasOwn(BUILTIN, name) ? BUILTIN[name] : undefined;
  if (make) return make();
  const configured = findConfiguredAgent(paths, name, options);
  if (configured) return configured;
  const known = [...BUILTIN_AGENT_NAMES, ...configuredAgentNames(paths)];
  throw new Error(`unknown agent "${name}" (known: ${known.join(", ")})`);
}

/** A single-turn ChatModel for a configuration (its provider SDK loads on first use); throws without its key. */
export async function createConfiguredChatModel(
  config: ResolvedAgentConfig,
  env?: NodeJS.ProcessEnv,
): Promise<ChatModel> {
  const key = resolveApiKey(config, env);
  if (key === undefined)
    throw new Error(
      `agent "${config.name}" needs the environment variable ${config.apiKeyEnv} (its API key)`,
    );
  return (await import("./providers/index.ts")).createChatModel(config, key);
}
