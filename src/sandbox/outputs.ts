// Copies the declared outputs out of a (stopped) sandbox: only declared paths, never through a
// link, never over the size cap, and with a reason for every output that is missing or rejected.
import path from "node:path";
import { sha256 } from "../task/index.ts";
import type { CollectedOutput } from "../trial/record.ts";
import { readSingleEntry } from "./archive.ts";
import type { DockerSandbox } from "./container.ts";
import { isDirectoryMode, isRegularMode, isSymlinkMode } from "./docker.ts";

export interface DeclaredOutput {
  path: string;
  maxBytes: number;
}

export interface OutputFile {
  record: CollectedOutput;
  /** The bytes, when collected. */
  bytes?: Buffer;
}

/** Why a declared path may not be read at all, or null when it is a plain relative path. */
export function unsafeOutputPath(p: string): string | null {
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
  const inside = target.startsWith("/") ? target.startsWith(`${workdir}/`) : !target.startsWith("..");
  const where = target && !inside ? " outside the work directory" : "";
  return `${what} is a symbolic link${target ? ` to ${target}` : ""}${where}; links are not followed`;
}

async function collectOne(sandbox: DockerSandbox, output: DeclaredOutput): Promise<OutputFile> {
  const p = output.path;
  const unsafe = unsafeOutputPath(p);
  if (unsafe) return rejected(p, unsafe);
  const segments = p.split("/");
  for (let i = 1; i < segments.length; i++) {
    const parent = segments.slice(0, i).join("/");
    const stat = await sandbox.stat(parent);
    if (!stat) return { record: { path: p, status: "missing", reason: `folder ${parent}/ does not exist` } };
    if (isSymlinkMode(stat.mode))
      return rejected(p, linkReason(`folder ${parent}`, stat.linkTarget, sandbox.workdir));
    if (!isDirectoryMode(stat.mode)) return rejected(p, `${parent} is not a folder`);
  }
  const stat = await sandbox.stat(p);
  if (!stat) return { record: { path: p, status: "missing", reason: "the file was not written" } };
  if (isSymlinkMode(stat.mode)) return rejected(p, linkReason(p, stat.linkTarget, sandbox.workdir));
  if (!isRegularMode(stat.mode)) {
    return rejected(
      p,
      isDirectoryMode(stat.mode) ? `${p} is a folder, not a file` : `${p} is not a regular file`,
    );
  }
  if (stat.size > output.maxBytes) {
    return rejected(
      p,
      `${p} is ${stat.size} bytes, over the cap of ${output.maxBytes} bytes (outputs[].maxBytes)`,
    );
  }
  const archive = await sandbox.archive(p);
  if (!archive) return { record: { path: p, status: "missing", reason: "the file was not written" } };
  const entry = await readSingleEntry(archive, output.maxBytes);
  if (entry.kind === "symlink") return rejected(p, linkReason(p, entry.target, sandbox.workdir));
  if (entry.kind === "too-large") {
    return rejected(
      p,
      `${p} is ${entry.size} bytes, over the cap of ${output.maxBytes} bytes (outputs[].maxBytes)`,
    );
  }
  if (entry.kind === "other") return rejected(p, `${p} is not a regular file (${entry.type})`);
  return {
    record: { path: p, status: "collected", size: entry.bytes.length, sha256: sha256(entry.bytes) },
    bytes: entry.bytes,
  };
}

/** Collects every declared output; ordinary problems become records, Docker failures throw. */
export async function collectOutputs(
  sandbox: DockerSandbox,
  outputs: readonly DeclaredOutput[],
): Promise<OutputFile[]> {
  const results: OutputFile[] = [];
  for (const output of outputs) results.push(await collectOne(sandbox, output));
  return results;
}

/** Where an output is saved on the host under a trial folder (its path is already checked safe). */
export function hostOutputPath(outputsDir: string, p: string): string {
  return path.join(outputsDir, ...p.split("/"));
}
