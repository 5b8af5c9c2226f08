// The model of each named configuration a probe asks: kgate.config.json entries, their API keys
// from the environment, a ChatModel through the provider's official SDK (loaded on first use).
import {
  type ChatModel,
  loadAgentConfigs,
  loadChatModel,
  type ResolvedAgentConfig,
  resolveApiKey,
} from "../agents/index.ts";
import type { ProjectPaths } from "../project.ts";
import { formatProblem } from "../task/index.ts";

export interface ProbeAgent {
  config: ResolvedAgentConfig;
  model: ChatModel;
}

/** One ProbeAgent per name, in order; throws a message naming the file, field or variable at fault. */
export async function probeAgents(
  paths: ProjectPaths,
  names: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<ProbeAgent[]> {
  const loaded = loadAgentConfigs(paths);
  if (loaded.errors.length > 0) {
    throw new Error(
      `${loaded.file} is invalid:\n${loaded.errors.map((p) => `  ${formatProblem(p)}`).join("\n")}`,
    );
  }
  const keyed = names.map((name) => {
    const config = loaded.agents.find((a) => a.name === name);
    if (!config) {
      const known = loaded.agents.map((a) => a.name).join(", ") || "none";
      throw new Error(
        `a probe asks a model: "${name}" is not a configuration in ${loaded.file} (configured: ${known})`,
      );
    }
    const key = resolveApiKey(config, env);
    if (key === undefined) {
      throw new Error(`agent "${name}" needs the environment variable ${config.apiKeyEnv} (its API key)`);
    }
    return { config, key };
  });
  return Promise.all(
    keyed.map(async ({ config, key }) => ({ config, model: await loadChatModel(config, key) })),
  );
}
