// Gated-task units run live under regimes E and U (`--live`) and in the budget re-solve (`--resolve`):
// each planned unit is one trial through the trial engine with the configuration's output-token budget
// set to its limit (and, in the re-solve, that limit stated in the agent's system prompt, never in the
// instruction). Each plan's trials go to a folder of their own, so phase 0 never reuses them and a
// resumed run finds a finished one instead of paying twice.
import path from "node:path";
import {
  createConfiguredAgent,
  type ResolvedAgentConfig,
  resolveAgentConfig,
  type SystemPromptPolicy,
} from "../agents/index.ts";
import type { ProjectPaths } from "../project.ts";
import { type Condition, outcomeOf as countedAs } from "../record/index.ts";
import type { LoadedTask } from "../task/index.ts";
import { agentInfoOf, readTrialRecords, type SandboxRunner, type TrialEngine } from "../trial/index.ts";
import type { UnitRunner } from "./live.ts";
import { spentOrRecord, trialOutcome } from "./task-unit.ts";

/** `live`: regime E live; `live-u`: regime U live (the limit is what is left of B); `resolve`: the re-solve. */
export type TaskLiveMode = "live" | "live-u" | "resolve";

/** The sentence the re-solve adds to the agent's system prompt (the same under +A and -A). */
export function taskBudgetSentence(tokens: number): string {
  return `You have a budget of ${tokens} tokens for this task.`;
}

/** Harnesses whose system prompt kgate can extend (OpenCode keeps its own: no re-solve there). */
export function canStateBudget(config: Pick<ResolvedAgentConfig, "harness">): boolean {
  return config.harness !== "opencode";
}

/** The policy with the sentence after whatever the configuration's system prompt is. */
function withSentence(policy: SystemPromptPolicy, sentence: string): SystemPromptPolicy {
  switch (policy.mode) {
    case "default":
      return { mode: "append", text: sentence };
    case "none":
      return { mode: "replace", text: sentence };
    default:
      return { mode: policy.mode, text: `${policy.text}\n\n${sentence}` };
  }
}

/**
 * The configuration a live unit runs with: output-token budget = `limit` (output tokens, as a_i and
 * phase 0's cost count them; input is not counted), max_tokens of one call at most `limit`, and in the
 * re-solve the budget sentence in the system prompt. Its digest is that of the changed configuration.
 */
export function budgetedConfig(
  config: ResolvedAgentConfig,
  limit: number,
  mode: TaskLiveMode,
): ResolvedAgentConfig {
  const { name, digest: _digest, harnessRevision: _revision, relay, ...defining } = config;
  return resolveAgentConfig(
    name,
    {
      ...defining,
      outputTokenBudget: limit,
      maxOutputTokens: Math.min(config.maxOutputTokens, limit),
      systemPrompt:
        mode === "resolve"
          ? withSentence(config.systemPrompt, taskBudgetSentence(limit))
          : config.systemPrompt,
    },
    relay,
  );
}

/** `r=0.5 alpha=0.75 framing=neutral` -> `r0.5-alpha0.75-neutral`. */
export function planFolder(key: string): string {
  return key.replace(" framing=", "-").replace(/=/g, "").replace(/ /g, "-");
}

export interface TaskLiveContext {
  paths: ProjectPaths;
  tasks: ReadonlyMap<string, LoadedTask>;
  /** The run's configuration, as phase 0 ran it. */
  config: ResolvedAgentConfig;
  runId: string;
  /** The triage run's folder. */
  runDir: string;
  log: (line: string) => void;
  /** The triage session's one sandbox runner (image and sweep once; each limit's agent prepared once). */
  sandbox: Pick<SandboxRunner, "add">;
  /** The triage session's one trial engine (its concurrency and retries, shared with phase 0). */
  engine: TrialEngine;
}

/**
 * Runs a planned task unit as a trial at `<run>/<mode>/<plan>/` with index = its position in the plan,
 * or returns that trial when a counted one of the same configuration (the same limit) is already
 * there; a trial at the same step with another limit (the plan was asked again and changed) is kept
 * and a new attempt runs after it. An infrastructure error throws, its retries spent by the session's
 * trial engine (the plan fails, is not asked again, and `--resume`
 * asks it again).
 */
export function taskLiveRunner(ctx: TaskLiveContext, mode: TaskLiveMode): UnitRunner {
  return async (unit, limit, at) => {
    if (unit.source.kind !== "task") throw new Error(`unit ${unit.id} is not a task`);
    if (!at) throw new Error(`unit ${unit.id}: a live task trial needs its plan and step`);
    const task = ctx.tasks.get(unit.source.task);
    if (!task) throw new Error(`unit ${unit.id}: task ${unit.source.task} is not loaded`);
    const condition = unit.source.condition as Condition;
    const folder = `${mode}/${planFolder(at.key)}`;
    const runDir = path.join(ctx.runDir, mode, planFolder(at.key));
    const config = budgetedConfig(ctx.config, limit, mode);
    // every trial of this unit at this step, whatever its limit (a plan asked again may differ)
    const atStep = readTrialRecords(runDir).records.filter(
      (r) => r.task.id === task.id && r.condition === condition && r.index === at.step,
    );
    const done = atStep.find((r) => r.agent.digest === config.digest && countedAs(r) !== "infra");
    const found = (record: NonNullable<typeof done>, reused: boolean) => ({
      ...trialOutcome(record, reused),
      trial: `${folder}/${record.trialId}`,
    });
    if (done) return found(done, true);
    const agent = createConfiguredAgent(ctx.paths, config, {
      log: (l) => ctx.log(`${config.name}: ${l}`),
    });
    await ctx.sandbox.add(agent);
    const record = await ctx.engine.run({
      task,
      condition,
      agent: agentInfoOf(agent),
      index: at.step,
      // numbered after every attempt at this step, so trial ids stay unique in the folder
      previousAttempt: Math.max(0, ...atStep.map((r) => r.attempt)),
      // the records' run id is the folder under runs/ that holds them: `<run>/live/<plan>`
      place: { runId: `${ctx.runId}/${folder}`, runDir },
    });
    return found(spentOrRecord(record), false);
  };
}
