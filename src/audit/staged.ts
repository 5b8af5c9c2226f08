// The git index as a file source: which tasks a staged change touches, and their staged bytes
// (not the working tree), read with three git processes whatever the number of files, the first
// two side by side.
import { spawn } from "node:child_process";
import type { FileSource } from "./input.ts";

export class GitError extends Error {}

/** The output of a git command; a GitError when git cannot run or fails. */
function git(cwd: string, args: string[], input?: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn("git", args, { cwd, stdio: ["pipe", "pipe", "pipe"] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
    child.on("error", (error) => reject(new GitError(`cannot run git: ${error.message}`)));
    child.on("close", (code) => {
      if (code === 0) return resolve(Buffer.concat(out));
      const message = Buffer.concat(err).toString("utf8").trim() || `exit ${code}`;
      reject(new GitError(`git ${args[0]} failed: ${message}`));
    });
    child.stdin.on("error", () => {}); // git may exit before reading all of it; close says why.
    child.stdin.end(input);
  });
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

/**
 * Reads the index of the repository holding `root`; paths are relative to `root` (the project root).
 * The staged change and the listing of every task's files are asked for at once; then the blobs of
 * the touched tasks' files are read in one batch.
 */
export async function stagedTasks(root: string): Promise<StagedTasks> {
  const asked = await Promise.allSettled([
    git(root, ["diff", "--cached", "--name-only", "--no-renames", "--relative", "-z"]),
    git(root, ["ls-files", "--stage", "-z", "--", "tasks", "artefacts", "audits"]),
  ]);
  // The first command's failure is the one reported, whichever finished first.
  const [diff, listing] = asked.map((answer) => {
    if (answer.status === "rejected") throw answer.reason;
    return answer.value;
  }) as [Buffer, Buffer];
  const changed = diff.toString("utf8").split("\0").filter(Boolean);
  const touched = new Set(changed.map(taskOfPath).filter((id): id is string => id !== undefined));
  const files = new Map<string, string>();
  for (const record of listing.toString("utf8").split("\0")) {
    const m = /^(\d+) ([0-9a-f]+) (\d)\t(.+)$/s.exec(record);
    if (!m || m[1] === "160000" || !touched.has(taskOfPath(m[4]!) ?? "")) continue;
    if (m[3] === "0" || !files.has(m[4]!)) files.set(m[4]!, m[2]!);
  }
  const blobs = new Map<string, Buffer>();
  if (files.size > 0) {
    const oids = [...new Set(files.values())];
    const out = await git(root, ["cat-file", "--batch"], `${oids.join("\n")}\n`);
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
  const ids = [...touched].sort().filter((id) => files.has(`tasks/${id}/task.json`));
  return { ids, source };
}
