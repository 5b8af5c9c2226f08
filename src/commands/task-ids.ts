// The task ids a verb was given, checked against the project: a glob (`bom-*`, `{a,b}-?`) stands for
// the tasks it matches (picomatch; none matching is a usage error), every named task must exist
// (else a usage error naming the unknown and the known ones); none named means every task.
import picomatch from "picomatch";
import { UsageError } from "../errors.ts";
import type { ProjectPaths } from "../project.ts";
// The task folder's light face, not its index.ts: the audit (the pre-commit hook) loads no task schemas.
import { listTaskIds, noTaskMessage } from "../task/light.ts";

const known = (ids: readonly string[]) => ids.join(", ") || "none";

/** Each glob among `requested` replaced by the known ids it matches, in their order; literal ids kept. */
export function expandTaskGlobs(paths: ProjectPaths, requested: readonly string[]): string[] {
  if (!requested.some((r) => picomatch.scan(r).isGlob)) return [...requested];
  const ids = listTaskIds(paths);
  const out = requested.flatMap((r) => {
    if (!picomatch.scan(r).isGlob) return [r];
    const isMatch = picomatch(r, { dot: true });
    const matches = ids.filter((id) => isMatch(id));
    if (matches.length === 0)
      throw new UsageError(
        `no task matches "${r}" in ${paths.tasks} (known: ${known(ids)}); quote a glob so the shell leaves it to kgate`,
      );
    return matches;
  });
  return [...new Set(out)];
}

export function selectTaskIds(paths: ProjectPaths, requested: readonly string[]): string[] {
  const ids = listTaskIds(paths);
  const expanded = expandTaskGlobs(paths, requested);
  const unknown = expanded.filter((t) => !ids.includes(t));
  if (unknown.length > 0) throw new UsageError(noTaskMessage(paths, unknown));
  return expanded.length > 0 ? expanded : ids;
}
