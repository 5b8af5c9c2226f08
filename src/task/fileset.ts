// The file set a condition puts into the sandbox: environment files, plus the artefact or a variant
// at the declared path under +A / variant, and nothing of it under -A.
import { readFileSync } from "node:fs";
import { fileSetDigest } from "./digest.ts";
import type { LoadedTask } from "./load.ts";
import { type Condition, variantOf } from "./schema.ts";

export interface SandboxFile {
  /** POSIX path relative to the sandbox work directory. */
  path: string;
  sha256: string;
  /** Reads the bytes; files are read only when copied in. */
  read(): Buffer;
}

export interface ConditionFileSet {
  condition: Condition;
  files: SandboxFile[];
  /** Digest of the whole set (see fileSetDigest). */
  digest: string;
  /** sha256 of the artefact or variant placed, or null under -A. */
  artefactDigest: string | null;
}

export function conditionFileSet(task: LoadedTask, condition: Condition): ConditionFileSet {
  const files: SandboxFile[] = task.environment.map((f) => ({
    path: f.path,
    sha256: f.sha256,
    read: () => readFileSync(f.absPath),
  }));
  let placed: { sha256: string; bytes: Buffer } | null = null;
  const variantName = variantOf(condition);
  if (condition === "+A") placed = task.artefact;
  else if (variantName !== undefined) {
    const variant = task.variants.find((v) => v.name === variantName);
    if (!variant) {
      const known = task.variants.map((v) => v.name).join(", ") || "none";
      throw new Error(`task "${task.id}" has no variant "${variantName}" (declared: ${known})`);
    }
    placed = variant;
  }
  if (placed) {
    const bytes = placed.bytes;
    files.push({ path: task.spec.artefact.path, sha256: placed.sha256, read: () => bytes });
  }
  return { condition, files, digest: fileSetDigest(files), artefactDigest: placed?.sha256 ?? null };
}
