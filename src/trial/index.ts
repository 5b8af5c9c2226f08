// The trial concern's public face: one trial end to end, the one engine that runs trials through a
// bounded pool, the sandbox runner behind it, records and trajectories on disk.
export {
  type EngineAgentInfo,
  type EngineEvents,
  type EngineOptions,
  HostsDownStop,
  TrialEngine,
  type TrialJob,
  type TrialRunner,
  type TrialSlot,
} from "./engine.ts";
export { conditionSlug, newRunId, runDirOf, trialDirOf, trialId } from "./ids.ts";
export { DEFAULT_PHASE_TIMEOUTS, PhaseTimeoutError, type PhaseTimeouts } from "./phases.ts";
export { PoolAbortedError, type PoolOptions, TrialPool } from "./pool.ts";
export {
  appendTrialRecord,
  type ReadRecords,
  readTrialRecords,
  TRIALS_FILE,
  trialsFileOf,
} from "./records.ts";
export { defaultVerify, runTrial, type TrialOptions, type VerifyTrial, verifyOutputs } from "./run-trial.ts";
export {
  agentInfoOf,
  modelProviderOf,
  openSandboxRunner,
  type SandboxRunner,
  type SandboxRunnerOptions,
} from "./sandbox-runner.ts";
export { FileTrajectory } from "./trajectory.ts";
