// Before the first trial: each model configuration a command will call is pinged once (the models-list
// call `kgate agents` makes), so a dead endpoint or a refused key stops the command at once, naming the
// configuration, the URL and the fix, instead of being found trial by trial through retries.
import type { ProjectPaths } from "../project.ts";
import { loadAgentConfigs, type ResolvedAgentConfig, resolveApiKey } from "./load-config.ts";
import { type PingResult, pingEndpoint } from "./providers/ping.ts";

type Unanswered = Exclude<PingResult, { state: "answered" }>;

/** A configuration whose endpoint did not answer its ping. */
export interface UnansweredEndpoint {
  config: Pick<ResolvedAgentConfig, "name" | "apiKeyEnv">;
  result: Unanswered;
}

export type Pinger = typeof pingEndpoint;

/**
 * Pings each named configuration once, side by side. Built-in agents, names kgate.config.json does not
 * define and configurations without their key are left out: the caller's own checks name those.
 */
export async function unansweredEndpoints(
  paths: ProjectPaths,
  names: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  ping: Pinger = pingEndpoint,
): Promise<UnansweredEndpoint[]> {
  const wanted = new Set(names);
  const configs = loadAgentConfigs(paths).agents.filter((c) => wanted.has(c.name));
  const results = await Promise.all(
    configs.map(async (config): Promise<UnansweredEndpoint | null> => {
      const key = resolveApiKey(config, env);
      if (key === undefined) return null;
      const result = await ping(config, key);
      return result.state === "answered"
        ? null
        : { config: { name: config.name, apiKeyEnv: config.apiKeyEnv }, result };
    }),
  );
  return results.filter((r): r is UnansweredEndpoint => r !== null);
}

/** What went wrong with one configuration's ping, and its fix. */
function problemAndFix(configFile: string, { config, result }: UnansweredEndpoint): [string, string] {
  if (result.state === "key-refused") {
    return [
      `${config.name}: ${result.url} refused the key in ${config.apiKeyEnv ?? "(no key variable)"} (${result.message})`,
      `set a valid key in ${config.apiKeyEnv}, or correct agents.${config.name}.apiKeyEnv in ${configFile}`,
    ];
  }
  const fix =
    result.status === null
      ? `start the server at that URL, or correct agents.${config.name}.baseUrl in ${configFile}`
      : `the server answered ${result.message}: try again when it is up, or correct agents.${config.name}.baseUrl in ${configFile}`;
  return [`${config.name}: ${result.url} unreachable: ${result.message}`, fix];
}

/** One unanswered configuration on one line: the configuration, its URL, what happened and the fix. */
export function unansweredText(configFile: string, unanswered: UnansweredEndpoint): string {
  const [problem, fix] = problemAndFix(configFile, unanswered);
  return `${problem} (fix: ${fix})`;
}

/** The refusal: every unanswered configuration, its URL and its fix, and how to skip the check. */
export function unansweredMessage(configFile: string, unanswered: readonly UnansweredEndpoint[]): string {
  return [
    `cannot start: ${unanswered.length} agent configuration(s) did not answer the endpoint ping made before the first trial:`,
    ...unanswered.flatMap((u) => {
      const [problem, fix] = problemAndFix(configFile, u);
      return [`  ${problem}`, `    fix: ${fix}`];
    }),
    "(`kgate agents` pings every configuration; --no-ping skips this check)",
  ].join("\n");
}
