// The leak audit's public face: audit tasks (from the working tree, a loaded task or the git index)
// and render the report as text, JSON or SARIF. `kgate check` calls auditTask.
import type { ProjectPaths } from "../project.ts";
import type { LoadedTask } from "../task/index.ts";
import { invalidAudit, runAudit, type TaskAudit } from "./audit.ts";
import { type FileSource, inputFromLoadedTask, readAuditInput, workingTree } from "./input.ts";
import { type AuditReport, buildReport } from "./report.ts";

export type { Counts, TaskAudit } from "./audit.ts";
export type { Location } from "./document.ts";
export type { Finding, Severity } from "./findings.ts";
export { formatSarif } from "./format-sarif.ts";
export { formatText } from "./format-text.ts";
export type { AuditInput, FileSource } from "./input.ts";
export { readAuditInput, workingTree } from "./input.ts";
export { type AuditReport, buildReport, exitCodeOf, RULES, redactReport } from "./report.ts";
export type { RuleId } from "./rules.ts";
export { AllowlistEntry, AuditFile, AuditItem } from "./schema.ts";
export { GitError, type StagedTasks, stagedTasks } from "./staged.ts";
export { type StatedNumber, statedNumbers } from "./stated-numbers.ts";

/** Audits a task the task loader has loaded: status `clean`, `findings` (an error) or `invalid`. */
export async function auditTask(paths: ProjectPaths, task: LoadedTask): Promise<TaskAudit> {
  return runAudit(inputFromLoadedTask(paths, task));
}

/** Audits one task read from `source` (the working tree by default, or the git index). */
export async function auditTaskById(
  paths: ProjectPaths,
  id: string,
  source: FileSource = workingTree(paths),
): Promise<TaskAudit> {
  const { input, problems } = readAuditInput(id, source);
  if (!input) return invalidAudit(id, problems);
  return runAudit(input, problems);
}

export async function auditTasks(
  paths: ProjectPaths,
  ids: readonly string[],
  source?: FileSource,
): Promise<AuditReport> {
  const tasks: TaskAudit[] = [];
  for (const id of ids) tasks.push(await auditTaskById(paths, id, source));
  return buildReport(tasks);
}
