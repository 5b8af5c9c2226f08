// A calibration whose deciding cells run scripted agents (oracle, noop) checks kgate's plumbing (the
// sandbox, the verifier, the records), not the task: the oracle runs the task's own solution, noop
// does nothing, so such a run's pass rates and decisions say nothing about what a model knows.
import type { Plumbing } from "../report/index.ts";
import type { Plan } from "./plan.ts";

/** The harnesses of the built-in agents, which run a script instead of a model. */
const SCRIPTED_HARNESSES: ReadonlySet<string> = new Set(["oracle", "noop"]);

/** The cells with a requirement run by a scripted agent, and what that means; null when there is none. */
export function plumbingOf(plan: Pick<Plan, "agents" | "specs">): Plumbing | null {
  const scripted = new Set(plan.agents.filter((a) => SCRIPTED_HARNESSES.has(a.harness)).map((a) => a.name));
  const specs = plan.specs.filter((s) => s.require !== null && scripted.has(s.agent));
  if (specs.length === 0) return null;
  const agents = [...new Set(specs.map((s) => s.agent))];
  return {
    cells: specs.map((s) => s.name),
    agents,
    note:
      `plumbing check, not evidence: ${specs.map((s) => s.name).join(", ")} run ${agents.join(" and ")} ` +
      "(scripted agents, no model), so this run checks kgate's plumbing (sandbox, verifier, records), not the task; " +
      "its decisions say nothing about what a model knows (calibrate with model configurations: --frontier <agent> --mid <agent>)",
  };
}

/** The progress line's label of a plumbing run: `plumbing check (oracle, noop) · `; "" otherwise. */
export function plumbingLabel(plan: Pick<Plan, "agents" | "specs">): string {
  const plumbing = plumbingOf(plan);
  return plumbing ? `plumbing check (${plumbing.agents.join(", ")}, not a model) · ` : "";
}
