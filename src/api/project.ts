// The library's project and task functions: open a kgate project by its folder, list its tasks,
// load one (validated, or an error naming the file and field), verify outputs against a task.
import { UsageError } from "../errors.ts";
import { type ProjectPaths, projectPaths } from "../project.ts";
import type { Verdict } from "../record/index.ts";
import { formatProblem, type LoadedTask, listTaskIds, loadTask as loadTaskResult } from "../task/index.ts";
import { type ConventionSet, verifyTrial } from "../verify/index.ts";

/** A kgate project: the folder holding kgate.config.json, tasks/, artefacts/, verifiers/, runs/. */
export interface Project {
  paths: ProjectPaths;
}

/** A task that does not load: `problems` name the file and field of each, with the fix. */
export class TaskLoadError extends UsageError {
  override name = "TaskLoadError";
  constructor(
    readonly taskId: string,
    readonly problems: string[],
  ) {
    super(`task "${taskId}" does not load:\n${problems.map((p) => `  ${p}`).join("\n")}`);
  }
}

/** The project rooted at `dir` (nothing is read until a function needs it). */
export function openProject(dir: string): Project {
  return { paths: projectPaths(dir) };
}

/** The ids of the project's tasks (folders of tasks/), valid or not. */
export function listTasks(project: Project): string[] {
  return listTaskIds(project.paths);
}

/** The task `id`, validated (task.json, artefact, verifier); a TaskLoadError otherwise. */
export function loadTask(project: Project, id: string): LoadedTask {
  const result = loadTaskResult(project.paths, id);
  if (!result.ok) throw new TaskLoadError(id, result.errors.map(formatProblem));
  return result.task;
}

/** One output an agent wrote: its path as the task declares it, and its content. */
export interface OutputFile {
  path: string;
  content: string | Uint8Array;
}

/**
 * The verdict of `outputs` against the task's reference answer (the artefact's convention set, or a
 * variant's): a declared output absent from `outputs` is missing.
 */
export function verifyOutputs(
  task: LoadedTask,
  outputs: readonly OutputFile[],
  reference: ConventionSet = "artefact",
): Promise<Verdict> {
  const byPath = new Map(outputs.map((o) => [o.path, o.content]));
  return verifyTrial(
    task,
    task.spec.outputs.map((declared) => {
      const content = byPath.get(declared.path);
      if (content === undefined) return { path: declared.path, status: "missing", reason: "not given" };
      return { path: declared.path, status: "collected", bytes: Buffer.from(content) };
    }),
    reference,
  );
}
