// What is in a project's folders: the task ids under tasks/, and the files under a folder.
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import type { ProjectPaths } from "../project.ts";

/** Every regular file under `dir`, as sorted POSIX paths relative to it; dotfiles are skipped. */
export function listFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (abs: string, rel: string) => {
    for (const entry of readdirSync(abs, { withFileTypes: true })) {
      if (entry.name.startsWith(".")) continue;
      const childRel = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(path.join(abs, entry.name), childRel);
      else if (entry.isFile()) out.push(childRel);
    }
  };
  if (existsSync(dir)) walk(dir, "");
  return out.sort();
}

/** The ids of all task folders (sub-folders of tasks/), sorted. */
export function listTaskIds(paths: ProjectPaths): string[] {
  if (!existsSync(paths.tasks)) return [];
  return readdirSync(paths.tasks, { withFileTypes: true })
    .filter((e) => e.isDirectory() && !e.name.startsWith("."))
    .map((e) => e.name)
    .sort();
}
