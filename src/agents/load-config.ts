// Loads kgate.config.json: schema -> normalise -> rules, returning problems (file + field) instead of
// throwing; resolves each configuration's base URL, key variable and digest. Keys come only from env.
import { existsSync, readFileSync } from "node:fs";
import { canonicalDigest } from "../common/index.ts";
import { type ProjectPaths, relativeToProject } from "../project.ts";
import { type Problem, parseJsonText, problemsFromZod } from "../task/index.ts";
import {
  type AgentConfig,
  DEFAULT_BASE_URLS,
  DEFAULT_KEY_ENVS,
  KgateConfig,
  RESERVED_AGENT_NAMES,
  RelaySettings,
} from "./config.ts";
import { harnessRevision } from "./harnesses.ts";

/** A configuration with every default resolved; what agents are built from and what is digested. */
export interface ResolvedAgentConfig extends AgentConfig {
  name: string;
  baseUrl: string;
  apiKeyEnv: string | null;
  /** `builtin@2`, `claude-code@2.1.332`, ... */
  harnessRevision: string;
  /** sha256 of the canonical JSON of everything that defines the configuration (not its name). */
  digest: string;
  /** The file's `relay` caps (project-wide, not digested: they bound a hostile harness, not define it). */
  relay: RelaySettings;
}

export interface ConfigLoadResult {
  /** Project-relative path of the file, for messages. */
  file: string;
  exists: boolean;
  agents: ResolvedAgentConfig[];
  errors: Problem[];
  warnings: Problem[];
}

export function resolveAgentConfig(
  name: string,
  config: AgentConfig,
  relay: RelaySettings = RelaySettings.parse({}),
): ResolvedAgentConfig {
  const baseUrl = (config.baseUrl ?? DEFAULT_BASE_URLS[config.provider] ?? "").replace(/\/+$/, "");
  const apiKeyEnv = config.apiKeyEnv === undefined ? DEFAULT_KEY_ENVS[config.provider] : config.apiKeyEnv;
  // the organisation and project name who pays, not what the agent is
  const { description: _cosmetic, openaiOrganization: _org, openaiProject: _project, ...defining } = config;
  const revision = harnessRevision(config.harness);
  const digest = canonicalDigest({ ...defining, baseUrl, apiKeyEnv, harnessRevision: revision });
  return { ...config, name, baseUrl, apiKeyEnv, harnessRevision: revision, digest, relay };
}

export function parseConfigText(file: string, text: string): Omit<ConfigLoadResult, "exists"> {
  const errors: Problem[] = [];
  const warnings: Problem[] = [];
  const json = parseJsonText(file, text);
  if (!json.ok) return { file, agents: [], errors: [json.problem], warnings };
  const raw = json.value as { agents?: Record<string, Record<string, unknown>> } | null;
  for (const [name, entry] of Object.entries(raw?.agents ?? {})) {
    for (const field of ["apiKey", "key", "token", "authToken"]) {
      if (entry && typeof entry === "object" && field in entry) {
        errors.push({
          severity: "error",
          file,
          field: `agents.${name}.${field}`,
          message: "secrets never go in the config file: name the environment variable in apiKeyEnv",
        });
      }
    }
  }
  if (errors.length > 0) return { file, agents: [], errors, warnings };
  const parsed = KgateConfig.safeParse(json.value);
  if (!parsed.success) return { file, agents: [], errors: problemsFromZod(file, parsed.error), warnings };
  const agents: ResolvedAgentConfig[] = [];
  for (const [name, config] of Object.entries(parsed.data.agents)) {
    if ((RESERVED_AGENT_NAMES as readonly string[]).includes(name)) {
      errors.push({
        severity: "error",
        file,
        field: `agents.${name}`,
        message: `"${name}" is a built-in agent; choose another name`,
      });
      continue;
    }
    if (config.harness !== "builtin" && raw?.agents?.[name]?.tools !== undefined) {
      warnings.push({
        severity: "warning",
        file,
        field: `agents.${name}.tools`,
        message: `ignored: harness ${config.harness} brings its own tools`,
      });
    }
    agents.push(resolveAgentConfig(name, config, parsed.data.relay));
  }
  return { file, agents, errors, warnings };
}

/** Loads the project's kgate.config.json; a missing file means no configured agents (not an error). */
export function loadAgentConfigs(paths: ProjectPaths): ConfigLoadResult {
  const file = relativeToProject(paths, paths.config);
  if (!existsSync(paths.config)) return { file, exists: false, agents: [], errors: [], warnings: [] };
  return { exists: true, ...parseConfigText(file, readFileSync(paths.config, "utf8")) };
}

/** The key a configuration needs, from the environment; null when it needs none, undefined when unset. */
export function resolveApiKey(
  config: Pick<ResolvedAgentConfig, "apiKeyEnv">,
  env: NodeJS.ProcessEnv = process.env,
): string | null | undefined {
  if (config.apiKeyEnv === null) return null;
  const value = env[config.apiKeyEnv];
  return value ? value : undefined;
}
