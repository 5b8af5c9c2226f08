// Agents from kgate.config.json: a configuration name becomes the built-in loop or an installed harness.
import type { ProjectPaths } from "../project.ts";
import { formatProblem } from "../task/index.ts";
import { BuiltinAgent } from "./builtin.ts";
import { ADAPTERS } from "./installed/adapters.ts";
import { InstalledAgent } from "./installed/agent.ts";
import { ensureHarnessImage } from "./installed/image.ts";
import { loadAgentConfigs, type ResolvedAgentConfig } from "./load-config.ts";
import type { Agent } from "./types.ts";

export interface ConfiguredAgentOptions {
  env?: NodeJS.ProcessEnv;
  /** Progress lines (image builds, relay retries) for the operator. */
  log?: (line: string) => void;
}

export function createConfiguredAgent(
  paths: ProjectPaths,
  config: ResolvedAgentConfig,
  options: ConfiguredAgentOptions = {},
): Agent {
  if (config.harness === "builtin") return new BuiltinAgent(config, { env: options.env, log: options.log });
  const adapter = ADAPTERS[config.harness];
  if (!adapter) throw new Error(`no adapter for harness "${config.harness}"`);
  return new InstalledAgent(config, {
    adapter,
    env: options.env,
    log: options.log,
    ensureImage: (provider) => ensureHarnessImage(paths, provider, options.log),
  });
}

/** The configured agent called `name`, or null when kgate.config.json has none by that name. */
export function findConfiguredAgent(
  paths: ProjectPaths,
  name: string,
  options: ConfiguredAgentOptions = {},
): Agent | null {
  const loaded = loadAgentConfigs(paths);
  if (loaded.errors.length > 0) {
    throw new Error(
      `${loaded.file} is invalid:\n${loaded.errors.map((p) => `  ${formatProblem(p)}`).join("\n")}`,
    );
  }
  const config = loaded.agents.find((a) => a.name === name);
  return config ? createConfiguredAgent(paths, config, options) : null;
}

export function configuredAgentNames(paths: ProjectPaths): string[] {
  return loadAgentConfigs(paths).agents.map((a) => a.name);
}
