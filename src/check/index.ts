// The pre-flight concern's public face: every check a task must pass before a model call is paid for.

export { changedValues } from "./answer-diff.ts";
export { type ConventionWeight, conventionWeights } from "./dead-rules.ts";
export {
  type HoleProbe,
  holesOf,
  type Judge,
  type RubricHoles,
  rubricHoles,
  rubricJudged,
} from "./rubric-holes.ts";
export { type CheckOptions, type CheckSummary, checkTask, STEPS, summarise, type TaskCheck } from "./run.ts";
export { sandboxSession } from "./sandbox-steps.ts";
export { type CheckBug, type CheckTasksOptions, checkTasks } from "./schedule.ts";
export type {
  CheckContext,
  CheckResult,
  CheckStatus,
  CheckStep,
  SandboxSession,
  StepOutcome,
} from "./types.ts";
