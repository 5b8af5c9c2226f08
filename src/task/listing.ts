// What is in a project's folders: the task ids under tasks/, and the files under a folder; a task id
// that names none, said with the nearest known id and the list of them.
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { distance } from "fastest-levenshtein";
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

/** The known id nearest to `id` when it is a likely misspelling of it (few edits for its length), or null. */
export function nearestId(id: string, known: readonly string[]): string | null {
  let best: { id: string; edits: number } | null = null;
  for (const k of known) {
    const edits = distance(id, k);
    if (!best || edits < best.edits) best = { id: k, edits };
  }
  return best && best.edits <= Math.max(2, Math.floor(id.length / 4)) ? best.id : null;
}

/** `no task "bom-costng" in <tasks>: did you mean "bom-costing"? (known: ...)`, for ids naming no task folder. */
export function noTaskMessage(paths: ProjectPaths, unknown: readonly string[]): string {
  const known = listTaskIds(paths);
  const named = unknown.map((t) => `"${t}"`).join(", ");
  const near = [...new Set(unknown.map((t) => nearestId(t, known)).filter((t) => t !== null))];
  const meant = near.length > 0 ? `: did you mean ${near.map((t) => `"${t}"`).join(", ")}?` : "";
  return `no task ${named} in ${paths.tasks}${meant} (known: ${known.join(", ") || "none"})`;
}
