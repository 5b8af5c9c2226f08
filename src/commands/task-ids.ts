// The task ids a verb was given, checked against the project: every named task must exist (else a
// usage error naming the unknown and the known ones); none named means every task.
import { UsageError } from "../errors.ts";
import type { ProjectPaths } from "../project.ts";
import { listTaskIds } from "../task/index.ts";

export function selectTaskIds(paths: ProjectPaths, requested: readonly string[]): string[] {
  const known = listTaskIds(paths);
  const unknown = requested.filter((t) => !known.includes(t));
  if (unknown.length > 0) {
    throw new UsageError(
      `no task ${unknown.map((t) => `"${t}"`).join(", ")} in ${paths.tasks} (known: ${known.join(", ") || "none"})`,
    );
  }
  return requested.length > 0 ? [...new Set(requested)] : known;
}
