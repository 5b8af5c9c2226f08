// kgate as a library (the package's main export, `import ... from "kgate"`): open a project, load
// and verify tasks, run trials and calibrate programmatically, read a run's records. A small, stable
// surface over the CLI's own machinery; docs/api.md documents it with a runnable example.
export type { ConfigOverrides } from "../calibrate/index.ts";
export { ExitError, UsageError } from "../errors.ts";
export { kgateVersion } from "../package-info.ts";
export type { ProjectPaths } from "../project.ts";
export type { Condition, TrialRecord, Verdict } from "../record/index.ts";
export type { RunSummary } from "../report/index.ts";
export type { LoadedTask } from "../task/index.ts";
export type { ConventionSet } from "../verify/index.ts";
export {
  type AuditOptions,
  type AuditReport,
  audit,
  type Finding,
  GitError,
  type TaskAudit,
} from "./audit.ts";
export {
  type CalibrateOptions,
  type CalibrationResult,
  CalibrationSetupError,
  calibrate,
} from "./calibrate.ts";
export {
  type CheckOptions,
  type CheckReport,
  type CheckResult,
  type CheckSummary,
  check,
  type TaskCheck,
} from "./check.ts";
export { pingBeforeTrials } from "./ping.ts";
export {
  listTasks,
  loadTask,
  type OutputFile,
  openProject,
  type Project,
  TaskLoadError,
  verifyOutputs,
} from "./project.ts";
export { type ReportOptions, type ReportResult, report } from "./report.ts";
export {
  type ProgressSource,
  type RunTrialsOptions,
  readRecords,
  runTrials,
  type TrialsResult,
} from "./run.ts";
