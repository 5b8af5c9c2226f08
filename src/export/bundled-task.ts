// A task as an exported bundle carries it (its task.json, the environment data, the bundled verifier
// module, its digest), read back into what verifyTrial takes: the Harbor tests/ folder's program
// and the rows' node scorer share it, so both verify exactly as kgate does.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { type LoadedTask, TaskSpec } from "../task/index.ts";

export interface BundledData {
  path: string;
  size: number;
  sha256: string;
}

export interface BundleFacts {
  id: string;
  /** The kgate task digest: the cache key of reference answers. */
  taskDigest: string;
  /** task.json's content. */
  spec: unknown;
  data: readonly BundledData[];
}

/**
 * The task of a bundle folder: its spec, the environment data under `environment/` (not a work
 * directory an agent could change) and the verifier module `verifier.mjs`.
 */
export function bundledTask(dir: string, { id, taskDigest, spec: json, data }: BundleFacts): LoadedTask {
  const spec = TaskSpec.parse(json);
  const environment = data.map((f) => ({ ...f, absPath: path.join(dir, "environment", f.path) }));
  // verifyTrial reads only id, dir, spec, environment, verifierPath and digests.task of a LoadedTask.
  return {
    id,
    dir: path.join(dir, "task"),
    spec,
    environment,
    verifierPath: path.join(dir, "verifier.mjs"),
    digests: { task: taskDigest },
  } as unknown as LoadedTask;
}

/** The shipped data files whose bytes differ from their recorded digest (the answer would be wrong). */
export function alteredData(task: LoadedTask, shownAs: string): string[] {
  return task.environment
    .filter((f) => createHash("sha256").update(readFileSync(f.absPath)).digest("hex") !== f.sha256)
    .map((f) => `${shownAs}/${f.path}`);
}
