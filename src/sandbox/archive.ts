// Tar streams in and out of containers: packing files for putArchive, reading one entry back with a cap.
import type { Readable } from "node:stream";
import tar from "tar-stream";

export interface PackFile {
  /** POSIX path relative to the extraction folder. */
  path: string;
  bytes: Buffer;
  mode?: number;
}

export interface Owner {
  uid: number;
  gid: number;
}

/** A tar of `files` with their parent folders, owned by `owner`. */
export function packFiles(files: readonly PackFile[], owner: Owner) {
  const pack = tar.pack();
  const dirs = new Set<string>();
  for (const file of files) {
    const parts = file.path.split("/");
    for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join("/"));
  }
  const mtime = new Date();
  for (const dir of [...dirs].sort()) {
    pack.entry({ name: `${dir}/`, type: "directory", mode: 0o755, mtime, ...owner });
  }
  for (const file of files) {
    pack.entry({ name: file.path, mode: file.mode ?? 0o644, mtime, ...owner }, file.bytes);
  }
  pack.finalize();
  return pack;
}

export type SingleEntry =
  | { kind: "file"; bytes: Buffer }
  | { kind: "too-large"; size: number }
  | { kind: "symlink"; target: string }
  | { kind: "other"; type: string }
  | { kind: "unreadable"; reason: string };

/**
 * Reads the first entry of a tar stream (as getArchive returns for one path), keeping at most
 * maxBytes. The archive comes from a container the agent controls, so it never rejects: a broken or
 * truncated stream (a file that changed size while Docker read it, a folder swapped mid-copy) is an
 * `unreadable` entry, and an entry whose name is not `expectedName` (the basename asked for) is
 * `other`. The stream is always closed at the end: Docker holds the container's lock until it is.
 */
export function readSingleEntry(
  stream: Readable,
  maxBytes: number,
  expectedName?: string,
): Promise<SingleEntry> {
  return new Promise((resolve) => {
    const extract = tar.extract();
    let settled = false;
    const finish = (result: SingleEntry) => {
      if (settled) return;
      settled = true;
      resolve(result);
      stream.destroy();
      extract.destroy();
    };
    const fail = (err: Error) => finish({ kind: "unreadable", reason: err.message || String(err) });
    extract.on("entry", (header, entry, next) => {
      entry.on("error", fail);
      const name = header.name.replace(/\/+$/, "");
      if (expectedName !== undefined && name !== expectedName) {
        return finish({ kind: "other", type: `an archive entry named ${JSON.stringify(name)}` });
      }
      if (header.type === "symlink" || header.type === "link") {
        return finish({ kind: "symlink", target: header.linkname ?? "" });
      }
      if (header.type !== "file" && header.type !== "contiguous-file") {
        return finish({ kind: "other", type: header.type ?? "unknown" });
      }
      const size = header.size ?? 0;
      if (size > maxBytes) return finish({ kind: "too-large", size });
      const chunks: Buffer[] = [];
      let received = 0;
      entry.on("data", (chunk) => {
        const c = chunk as Buffer;
        received += c.length;
        if (received > maxBytes) return finish({ kind: "too-large", size: received });
        chunks.push(c);
      });
      entry.on("end", () => {
        if (received !== size) return fail(new Error(`the entry held ${received} of ${size} bytes`));
        finish({ kind: "file", bytes: Buffer.concat(chunks) });
        next();
      });
    });
    extract.on("finish", () => finish({ kind: "other", type: "empty archive" }));
    extract.on("error", fail);
    stream.on("error", fail);
    stream.pipe(extract);
  });
}
