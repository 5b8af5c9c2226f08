// Loads a triage pool named on the command line: an item file (items/<pool>.jsonl or a path), or
// gated tasks (`tasks:<id>,<id>` sandboxed, `inline:<id>,<id>` in their inline form: each under +A
// with its -A twin as the unsolvable replacement),
// with what identifies it in the run's settings (file and sha256) so a resume can refuse a change.
import { readFileSync } from "node:fs";
import type { ProjectPaths } from "../project.ts";
import { relativeToProject } from "../project.ts";
import {
  InlineFormError,
  type LoadedTask,
  loadItemPool,
  loadValidTask,
  renderInline,
  sha256,
} from "../task/index.ts";
import { type TriageUnit, unitsFromItems } from "./pool.ts";
import type { TriageSettings } from "./records.ts";
import { unitsFromTasks } from "./task-unit.ts";

export interface LoadedTriagePool {
  info: TriageSettings["pool"];
  units: TriageUnit[];
  /** Gated tasks only: each +A unit's -A twin. */
  twins?: Map<string, TriageUnit>;
  tasks?: Map<string, LoadedTask>;
  /** Gated tasks run in their inline form (`inline:`), not sandboxed. */
  inline?: boolean;
}

export const TASKS_PREFIX = "tasks:";
export const INLINE_PREFIX = "inline:";

/** Whether a pool spec (or a run's pool name) names gated tasks, sandboxed or inline. */
export const namesTasks = (spec: string) => spec.startsWith(TASKS_PREFIX) || spec.startsWith(INLINE_PREFIX);

/** Refuses a task the inline form cannot carry (environment over its limit, a file not UTF-8). */
function checkInline(task: LoadedTask): void {
  try {
    renderInline(task, "+A");
    renderInline(task, "-A");
  } catch (err) {
    if (err instanceof InlineFormError) throw new Error(`inline pool: ${err.message}`);
    throw err;
  }
}

export function loadTriagePool(paths: ProjectPaths, spec: string): LoadedTriagePool {
  if (namesTasks(spec)) {
    const inline = spec.startsWith(INLINE_PREFIX);
    const prefix = inline ? INLINE_PREFIX : TASKS_PREFIX;
    const ids = [...new Set(spec.slice(prefix.length).split(",").filter(Boolean))];
    if (ids.length === 0) throw new Error(`"${spec}" names no task (${prefix}<id>,<id>)`);
    const tasks = ids.map((id) => loadValidTask(paths, id));
    if (inline) tasks.forEach(checkInline);
    const { units, twins } = unitsFromTasks(tasks, inline ? "inline" : "task");
    return {
      inline,
      info: {
        name: `${prefix}${ids.join(",")}`,
        file: relativeToProject(paths, paths.tasks),
        digest: sha256(tasks.map((t) => `${t.id}:${t.digests.task}`).join("\n")),
      },
      units,
      twins,
      tasks: new Map(tasks.map((t) => [t.id, t])),
    };
  }
  const pool = loadItemPool(paths.root, spec);
  return {
    info: {
      name: pool.name,
      file: relativeToProject(paths, pool.file),
      digest: sha256(readFileSync(pool.file, "utf8")),
    },
    units: unitsFromItems(pool),
  };
}
