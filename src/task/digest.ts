// Stable sha256 digests of bytes and of file sets, recorded in every trial record.
import { createHash } from "node:crypto";

export function sha256(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

export interface DigestedFile {
  /** POSIX path relative to the set's root (the sandbox work directory for file sets). */
  path: string;
  sha256: string;
}

/**
 * Digest of a file set: sha256 over the lines `<sha256>  <path>\n` sorted by path, i.e. the
 * output of `sha256sum` on the sorted paths. Independent of file order and modification times.
 */
export function fileSetDigest(files: readonly DigestedFile[]): string {
  const lines = [...files]
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    .map((f) => `${f.sha256}  ${f.path}\n`);
  return sha256(lines.join(""));
}
