// Copies the declared outputs out of a sandbox: only declared paths, never through a link, never
// over the size cap, and with a reason for every output that is missing or rejected. The container
// may still run: Docker resolves every path inside the container's root, so a process racing the
// checks can at worst swap in another file of the container (which it could have copied anyway),
// never a host file; the type and size are checked again on the tar entry itself.
import path from "node:path";
import type { Readable } from "node:stream";
import { sha256 } from "../task/index.ts";
import { readSingleEntry } from "./archive.ts";
import type { DeclaredOutput, OutputFile } from "./provider.ts";

/** What a path is, without following it if it is a link. */
export interface PathInfo {
  type: "file" | "directory" | "symlink" | "other";
  size: number;
  /** Where a link points (empty for other types). */
  linkTarget: string;
}

/**
 * What collecting needs of a sandbox (a provider reuses collectOutputs by giving these): its work
 * directory, what a path is, and a tar stream of one path (its entry judged here).
 */
export interface ArchiveReader {
  readonly workdir: string;
  /** What the path is (a link not followed), or null when it does not exist. */
  stat(p: string): Promise<PathInfo | null>;
  /** A tarball of the path, or null when it does not exist. */
  archive(p: string): Promise<Readable | null>;
}

/** Why a declared path may not be read at all, or null when it is a plain relative path. */
function unsafeOutputPath(p: string): string | null {
  if (p.startsWith("/")) return `path traversal: "${p}" is absolute`;
  if (p.includes("\\")) return `path traversal: "${p}" contains a backslash`;
  const segments = p.split("/");
  if (segments.includes("..")) return `path traversal: "${p}" contains a ".." segment`;
  if (segments.some((s) => s === "" || s === ".")) return `"${p}" has an empty or "." segment`;
  return null;
}

function rejected(p: string, reason: string): OutputFile {
  return { record: { path: p, status: "rejected", reason } };
}

function linkReason(what: string, target: string, workdir: string): string {
  const outside = target && !target.startsWith(`${workdir}/`) ? " outside the work directory" : "";
  return `${what} is a symbolic link${target ? ` to ${target}` : ""}${outside}; links are not followed`;
}

/** A folder on the way that is missing, a link or not a folder, as the output's record. */
function parentProblem(
  p: string,
  parents: readonly string[],
  stats: ReadonlyArray<PathInfo | null>,
  workdir: string,
): OutputFile | null {
  for (const [i, parent] of parents.entries()) {
    const stat = stats[i];
    if (!stat) return { record: { path: p, status: "missing", reason: `folder ${parent}/ does not exist` } };
    if (stat.type === "symlink") return rejected(p, linkReason(`folder ${parent}`, stat.linkTarget, workdir));
    if (stat.type !== "directory") return rejected(p, `${parent} is not a folder`);
  }
  return null;
}

async function collectOne(sandbox: ArchiveReader, output: DeclaredOutput): Promise<OutputFile> {
  const p = output.path;
  const unsafe = unsafeOutputPath(p);
  if (unsafe) return rejected(p, unsafe);
  const segments = p.split("/");
  const parents = segments.slice(0, -1).map((_, i) => segments.slice(0, i + 1).join("/"));
  // One archive call at a time: Docker keeps the container locked until a GET stream is read or closed.
  const stats: Array<PathInfo | null> = [];
  for (const parent of parents) stats.push(await sandbox.stat(parent));
  const problem = parentProblem(p, parents, stats, sandbox.workdir);
  if (problem) return problem;
  // The file itself is judged by its tar entry: type and size are known before any content is read.
  const archive = await sandbox.archive(p);
  if (!archive) return { record: { path: p, status: "missing", reason: "the file was not written" } };
  const entry = await readSingleEntry(archive, output.maxBytes, path.posix.basename(p));
  if (entry.kind === "unreadable") {
    return rejected(
      p,
      `${p} could not be read from the sandbox (${entry.reason}); was it changed during copy-out?`,
    );
  }
  if (entry.kind === "symlink") {
    const target = path.posix.resolve(sandbox.workdir, path.posix.dirname(p), entry.target);
    return rejected(p, linkReason(p, target, sandbox.workdir));
  }
  if (entry.kind === "too-large") {
    return rejected(
      p,
      `${p} is ${entry.size} bytes, over the cap of ${output.maxBytes} bytes (outputs[].maxBytes)`,
    );
  }
  if (entry.kind === "other") {
    return rejected(
      p,
      entry.type === "directory"
        ? `${p} is a folder, not a file`
        : entry.type.startsWith("an archive entry")
          ? `${p} is not the file asked for (${entry.type})`
          : `${p} is not a regular file`,
    );
  }
  return {
    record: { path: p, status: "collected", size: entry.bytes.length, sha256: sha256(entry.bytes) },
    bytes: entry.bytes,
  };
}

/** Collects every declared output; ordinary problems become records, Docker failures throw. */
export async function collectOutputs(
  sandbox: ArchiveReader,
  outputs: readonly DeclaredOutput[],
): Promise<OutputFile[]> {
  const results: OutputFile[] = [];
  for (const output of outputs) results.push(await collectOne(sandbox, output));
  return results;
}
