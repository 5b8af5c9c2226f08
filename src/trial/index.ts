// The trial concern's public face: the one engine (generic over units and their records; over trials
// as TrialEngine), the one trial lifecycle and its three forms (sandbox, inline, session), the sandbox
// runner behind trial engines, verification on the host, records and trajectories on disk.

export { type BudgetInput, configuredPhaseBounds, DEFAULT_PHASE_BOUNDS, trialBudget } from "./budget.ts";
export { type Conversation, converse } from "./converse.ts";
export {
  type Admission,
  type Admit,
  type EngineUnit,
  HostsDownStop,
  type RunPlace,
  UnitEngine,
  type UnitEngineOptions,
  type UnitEvents,
  type UnitKind,
  type UnitRunner,
} from "./engine.ts";
export { newRunId, runDirOf, trialDirOf, trialId } from "./ids.ts";
export { type InlineTrialOptions, type InlineTrialResult, runInlineTrial } from "./inline-form.ts";
export { type JudgeCallsBound, judgeCallBounds, taskJudgeBounds } from "./judge-bound.ts";
export { JudgeError, type JudgeOptions, judgeUsageOf, judgeVerdict } from "./judge-phase.ts";
export { PoolAbortedError, type PoolOptions, UnitPool } from "./pool.ts";
export { crashRecordOf, type TaskAttempt, type TrialIdentity } from "./record-parts.ts";
export {
  appendTrialRecord,
  type ReadRecords,
  readTrialRecords,
  trialsFileOf,
} from "./records.ts";
export { runTrial, type TrialOptions } from "./run-trial.ts";
export { onPlacedHost } from "./sandbox-phases.ts";
export {
  agentInfoOf,
  modelProviderOf,
  openSandboxRunner,
  type SandboxRunner,
  type SandboxRunnerOptions,
} from "./sandbox-runner.ts";
export {
  runSessionTrial,
  type SessionTaskPlace,
  type SessionTrialOptions,
  sessionLimits,
} from "./session-form.ts";
export { FileTrajectory } from "./trajectory.ts";
export {
  type EngineAgentInfo,
  type EngineEvents,
  type EngineOptions,
  TrialEngine,
  type TrialJob,
  type TrialRunner,
  type TrialSlot,
} from "./trial-engine.ts";
export { type DefaultVerifyOptions, defaultVerify, type VerifyTrial, verifyOutputs } from "./verify-phase.ts";
