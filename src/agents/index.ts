// The agents concern's public face: the Agent interface, the built-in agents, and name resolution.
import type { ProjectPaths } from "../project.ts";
import { noopAgent } from "./noop.ts";
import { oracleAgent } from "./oracle.ts";
import type { Agent } from "./types.ts";

export { noopAgent } from "./noop.ts";
export { oracleAgent, SOLUTION_DIR_IN_SANDBOX } from "./oracle.ts";
export type * from "./types.ts";

const BUILTIN: Record<string, () => Agent> = { oracle: oracleAgent, noop: noopAgent };

export const BUILTIN_AGENT_NAMES = Object.keys(BUILTIN);

/** The agent configuration called `name`: a built-in one (oracle, noop) for now. */
export async function resolveAgent(_paths: ProjectPaths, name: string): Promise<Agent> {
  const make = BUILTIN[name];
  if (!make) throw new Error(`unknown agent "${name}" (known: ${BUILTIN_AGENT_NAMES.join(", ")})`);
  return make();
}
