// Test support: an AgentRunContext around a scaffolded task, a sandbox and an in-memory trajectory.

import { AgentConfig, type AgentConfigInput } from "../../src/agents/config.ts";
import { type ResolvedAgentConfig, resolveAgentConfig } from "../../src/agents/load-config.ts";
import { TrajectoryRecorder } from "../../src/agents/trajectory.ts";
import type { Agent, AgentRunContext } from "../../src/agents/types.ts";
import type { PhaseBounds } from "../../src/record/index.ts";
import type { Sandbox } from "../../src/sandbox/types.ts";
import {
  type Condition,
  conditionFileSet,
  type LoadedTask,
  loadValidTask,
  scaffoldTask,
} from "../../src/task/index.ts";
import { trialBudget } from "../../src/trial/index.ts";
import { tempProject } from "./project.ts";

export function scaffoldedTask(): LoadedTask {
  const paths = tempProject();
  scaffoldTask(paths, { id: "demo", gate: "convention" });
  return loadValidTask(paths, "demo");
}

export function agentConfig(name: string, input: AgentConfigInput): ResolvedAgentConfig {
  return resolveAgentConfig(name, AgentConfig.parse(input));
}

export interface RunContextOptions {
  condition?: Condition;
  task?: LoadedTask;
  signal?: AbortSignal;
  instruction?: string;
  /** The agent to be run: its configuration's limits go into the budget, as a trial's runner puts them. */
  agent?: Pick<Agent, "limits">;
  phases?: Partial<PhaseBounds>;
}

/** A sandboxed trial's context for running an agent directly, its budget computed as runTrial computes it. */
export function runContext(
  sandbox: Sandbox,
  options: RunContextOptions = {},
): AgentRunContext & { trajectory: TrajectoryRecorder } {
  const task = options.task ?? scaffoldedTask();
  const condition = options.condition ?? "+A";
  return {
    instruction: options.instruction ?? task.instruction.toString("utf8"),
    sandbox,
    budget: trialBudget({
      limits: task.spec.limits,
      agent: options.agent?.limits,
      phases: options.phases,
      sandbox: true,
    }),
    condition,
    artefact:
      condition === "-A"
        ? null
        : { path: task.spec.artefact.path, description: task.spec.artefact.description },
    task,
    signal: options.signal ?? new AbortController().signal,
    trajectory: new TrajectoryRecorder(),
  };
}

/** The files a condition puts into the sandbox, as a path -> text map. */
export function conditionFiles(task: LoadedTask, condition: Condition): Record<string, string> {
  return Object.fromEntries(
    conditionFileSet(task, condition).files.map((f) => [f.path, f.read().toString("utf8")]),
  );
}
