// Loads a triage pool named on the command line: an item file (items/<pool>.jsonl or a path), or
// gated tasks (`tasks:<id>,<id>`: each under +A with its -A twin as the unsolvable replacement),
// with what identifies it in the run's settings (file and sha256) so a resume can refuse a change.
import { readFileSync } from "node:fs";
import type { ProjectPaths } from "../project.ts";
import { relativeToProject } from "../project.ts";
import { type LoadedTask, loadItemPool, loadValidTask, sha256 } from "../task/index.ts";
import { type TriageUnit, unitsFromItems } from "./pool.ts";
import type { TriageSettings } from "./records.ts";
import { unitsFromTasks } from "./task-unit.ts";

export interface LoadedTriagePool {
  info: TriageSettings["pool"];
  units: TriageUnit[];
  /** Gated tasks only: each +A unit's -A twin. */
  twins?: Map<string, TriageUnit>;
  tasks?: Map<string, LoadedTask>;
}

export const TASKS_PREFIX = "tasks:";

export function loadTriagePool(paths: ProjectPaths, spec: string): LoadedTriagePool {
  if (spec.startsWith(TASKS_PREFIX)) {
    const ids = [...new Set(spec.slice(TASKS_PREFIX.length).split(",").filter(Boolean))];
    if (ids.length === 0) throw new Error(`"${spec}" names no task (tasks:<id>,<id>)`);
    const tasks = ids.map((id) => loadValidTask(paths, id));
    const { units, twins } = unitsFromTasks(tasks);
    return {
      info: {
        name: `${TASKS_PREFIX}${ids.join(",")}`,
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
