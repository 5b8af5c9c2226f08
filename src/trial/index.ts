// The trial concern's public face: one trial end to end, N trials through a pool, records on disk.
export { conditionSlug, newRunId, runDirOf, trialDirOf, trialId } from "./ids.ts";
export { DEFAULT_PHASE_TIMEOUTS, PhaseTimeoutError, type PhaseTimeouts } from "./phases.ts";
export { runPool } from "./pool.ts";
export * from "./record.ts";
export {
  appendTrialRecord,
  type ReadRecords,
  type RecordProblem,
  readTrialRecords,
  TRIALS_FILE,
  trialsFileOf,
} from "./records.ts";
export { runTrial, type TrialOptions, type VerifyTrial } from "./run-trial.ts";
export { isRetryable, RETRYABLE_KINDS, type RunTrialsOptions, runTrials } from "./run-trials.ts";
export { FileTrajectory } from "./trajectory.ts";
