// The library's leak audit (`kgate audit` as a function): the static audit of tasks' instructions and
// environments, from the working tree or the git index (`staged`). The API's light face: `kgate audit`
// is the pre-commit hook, so this file reaches no task schemas (src/task/light.ts) and loads the
// audit's own modules only when called.
import { existsSync } from "node:fs";
import path from "node:path";
import { type AuditReport, stagedTasks } from "../audit/index.ts";
import { UsageError } from "../errors.ts";
// The task folder's light face, not its index.ts: the audit (the pre-commit hook) loads no task schemas.
import { listTaskIds, noTaskMessage } from "../task/light.ts";
// A type import only: project.ts loads the task schemas.
import type { Project } from "./project.ts";

export type { AuditReport, Finding, TaskAudit } from "../audit/index.ts";
export { GitError } from "../audit/index.ts";

export interface AuditOptions {
  /** Task ids (absent or empty: every task of the project; with `staged`, every task a staged change touches). */
  tasks?: readonly string[];
  /** Audit the git index's content of the tasks a staged change touches (the pre-commit hook). */
  staged?: boolean;
}

/** The audit's modules, loaded after `staged` has set git to work (the two overlap). */
const auditModules = () => import("../audit/index.ts");

/**
 * The audit report of the project's tasks: each task `clean`, with `findings` or `invalid`, and the
 * counts by severity. Throws a UsageError for a task id the project does not have, and the audit's
 * GitError when `staged` cannot read the git index.
 */
export async function audit(project: Project, options: AuditOptions = {}): Promise<AuditReport> {
  const { paths } = project;
  const ids = options.tasks ?? [];
  if (options.staged) {
    const asked = stagedTasks(paths.root);
    asked.catch(() => {}); // awaited below; until then a failure must not count as unhandled
    const { auditTasks } = await auditModules();
    const staged = await asked;
    const chosen = ids.length > 0 ? staged.ids.filter((id) => ids.includes(id)) : staged.ids;
    return auditTasks(paths, chosen, staged.source);
  }
  const { auditTasks } = await auditModules();
  for (const id of ids) {
    if (!existsSync(path.join(paths.tasks, id))) throw new UsageError(noTaskMessage(paths, [id]));
  }
  return auditTasks(paths, ids.length > 0 ? ids : listTaskIds(paths));
}
