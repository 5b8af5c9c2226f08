// One trial's budget, computed once at its start from the task's limits, the agent configuration's
// own limits and the run's phase bounds: every form bounds its phases with it, every agent reads its
// wall clock, tokens and turns from it (AgentRunContext.budget), and the record keeps it.
import { existsSync, readFileSync } from "node:fs";
import { type AgentLimits, TrialSettings } from "../agents/index.ts";
import { type ProjectPaths, relativeToProject } from "../project.ts";
import { type PhaseBounds, TrialBudget } from "../record/index.ts";
import { formatProblem, type Limits, problemsFromZod } from "../task/index.ts";

/** The phase bounds of every trial unless configured (kgate.config.json `trial.phaseBoundsSec`). */
export const DEFAULT_PHASE_BOUNDS: PhaseBounds = {
  create: 60_000,
  copyIn: 60_000,
  stop: 30_000,
  copyOut: 120_000,
  remove: 60_000,
  verify: 60_000,
  agentGrace: 15_000,
};

/** Seconds a sandbox lives past the agent's wall clock at the least: set-up, copy-in, the stop, copy-out. */
export const SANDBOX_SLACK_SEC = 600;

export interface BudgetInput {
  /** The task's limits (a session's: sessionLimits). */
  limits: Pick<Limits, "timeoutSec" | "maxTokens" | "maxTurns">;
  /** The agent configuration's limits; absent for an agent without one (oracle, noop). */
  agent?: AgentLimits | undefined;
  /** Phase bounds that differ from DEFAULT_PHASE_BOUNDS (configuration, tests). */
  phases?: Partial<PhaseBounds> | undefined;
  /** Does the trial run in a sandbox (false: an inline conversation, no sandbox deadline)? */
  sandbox: boolean;
}

/**
 * The trial's budget: of turns, tokens and wall-clock seconds the tighter of the task's and the
 * configuration's; the sandbox ends itself once the wall clock and the phases that need it are over.
 */
export function trialBudget(i: BudgetInput): TrialBudget {
  const phases = { ...DEFAULT_PHASE_BOUNDS, ...i.phases };
  const tighter = (task: number, config: number | undefined) => Math.min(task, config ?? task);
  const wallClockSec = tighter(i.limits.timeoutSec, i.agent?.timeoutSec);
  // the phases the sandbox must outlive besides the agent's: create, copy in, the grace, stop, copy out
  const around = Math.ceil(
    (phases.create + phases.copyIn + phases.agentGrace + phases.stop + phases.copyOut) / 1000,
  );
  return TrialBudget.parse({
    wallClockSec,
    tokens: tighter(i.limits.maxTokens, i.agent?.tokenBudget),
    outputTokens: i.agent?.outputTokenBudget ?? null,
    turns: tighter(i.limits.maxTurns, i.agent?.maxTurns),
    sandboxDeadlineSec: i.sandbox ? wallClockSec + Math.max(SANDBOX_SLACK_SEC, around) : null,
    phases,
  });
}

/**
 * The phase bounds kgate.config.json sets (`trial.phaseBoundsSec`, in seconds), in ms; read once per
 * run. A bad value throws, naming the file and the field; an unreadable file is the agents' loader's
 * to report.
 */
export function configuredPhaseBounds(paths: ProjectPaths): Partial<PhaseBounds> {
  if (!existsSync(paths.config)) return {};
  let root: { trial?: unknown };
  try {
    root = JSON.parse(readFileSync(paths.config, "utf8")) ?? {};
  } catch {
    return {};
  }
  const parsed = TrialSettings.safeParse(root.trial ?? {});
  if (!parsed.success) {
    const problem = problemsFromZod(relativeToProject(paths, paths.config), parsed.error)[0]!;
    const field = problem.field === "(root)" ? "trial" : `trial.${problem.field}`;
    const fix = "a phase's bound is a whole number of seconds, 1 to 86400";
    throw new Error(`${formatProblem({ ...problem, field })} (${fix})`);
  }
  return Object.fromEntries(
    Object.entries(parsed.data.phaseBoundsSec).flatMap(([phase, sec]) =>
      sec === undefined ? [] : [[phase, sec * 1000]],
    ),
  );
}
