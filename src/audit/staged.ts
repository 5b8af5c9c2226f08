// The git index as a file source: which tasks a staged change touches, and their staged bytes
// (not the working tree), read with three git processes whatever the number of files.
import { spawnSync } from "node:child_process";
import type { FileSource } from "./input.ts";

export class GitError extends Error {}

function git(cwd: string, args: string[], input?: string | Buffer): Buffer {
  const result = spawnSync("git", args, { cwd, input, maxBuffer: 1 << 30 });
  if (result.error) throw new GitError(`cannot run git: ${result.error.message}`);
  if (result.status !== 0) {
    throw new GitError(
      `git ${args[0]} failed: ${result.stderr.toString("utf8").trim() || `exit ${result.status}`}`,
    );
  }
  return result.stdout;
}

/** Task ids a project-relative path belongs to (tasks/<id>/..., artefacts/<id>/..., audits/<id>.json). */
export function taskOfPath(file: string): string | undefined {
  const m = /^(?:tasks|artefacts)\/([^/]+)\/|^audits\/([^/]+)\.json$/.exec(file);
  return m?.[1] ?? m?.[2];
}

export interface StagedTasks {
  /** Tasks touched by the staged change that still exist in the index, sorted. */
  ids: string[];
  source: FileSource;
}

/** Reads the index of the repository holding `root`; paths are relative to `root` (the project root). */
export function stagedTasks(root: string): StagedTasks {
  const changed = git(root, ["diff", "--cached", "--name-only", "--no-renames", "--relative", "-z"])
    .toString("utf8")
    .split("\0")
    .filter(Boolean);
  const touched = [...new Set(changed.map(taskOfPath).filter((id): id is string => id !== undefined))].sort();
  const files = new Map<string, string>();
  if (touched.length > 0) {
    const specs = touched.flatMap((id) => [`tasks/${id}`, `artefacts/${id}`, `audits/${id}.json`]);
    const listing = git(root, ["ls-files", "--stage", "-z", "--", ...specs]).toString("utf8");
    for (const record of listing.split("\0")) {
      const m = /^(\d+) ([0-9a-f]+) (\d)\t(.+)$/s.exec(record);
      if (!m || m[1] === "160000") continue;
      if (m[3] === "0" || !files.has(m[4]!)) files.set(m[4]!, m[2]!);
    }
  }
  const blobs = new Map<string, Buffer>();
  if (files.size > 0) {
    const oids = [...new Set(files.values())];
    const out = git(root, ["cat-file", "--batch"], `${oids.join("\n")}\n`);
    let at = 0;
    while (at < out.length) {
      const eol = out.indexOf(10, at);
      const [oid, type, size] = out.subarray(at, eol).toString("utf8").split(" ");
      if (type === "missing" || size === undefined)
        throw new GitError(`git cat-file: object ${oid} is missing`);
      const length = Number(size);
      blobs.set(oid!, out.subarray(eol + 1, eol + 1 + length));
      at = eol + 1 + length + 1;
    }
  }
  const source: FileSource = {
    read: (file) => {
      const oid = files.get(file);
      return oid === undefined ? undefined : blobs.get(oid);
    },
    content: (file) => ({ bytes: source.read(file) ?? Buffer.alloc(0) }),
    list: (dir) =>
      [...files.keys()]
        .filter((f) => f.startsWith(`${dir}/`))
        .map((f) => f.slice(dir.length + 1))
        .filter((rel) => !rel.split("/").some((segment) => segment.startsWith(".")))
        .sort(),
  };
  return { ids: touched.filter((id) => files.has(`tasks/${id}/task.json`)), source };
}
