// Tar streams in and out of containers: packing files for putArchive (after a folder's seed, in one
// tar), reading one entry back with a cap.
import { Readable } from "node:stream";
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

/**
 * A tar of `files` with their parent folders, owned by `owner`; with `under`, every entry is named
 * below that folder (which the tar does not create: it is the extraction folder's own).
 */
export function packFiles(files: readonly PackFile[], owner: Owner, under = "") {
  const at = (p: string) => (under ? `${under}/${p}` : p);
  const pack = tar.pack();
  const dirs = new Set<string>();
  for (const file of files) {
    const parts = file.path.split("/");
    for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join("/"));
  }
  const mtime = new Date();
  for (const dir of [...dirs].sort()) {
    pack.entry({ name: `${at(dir)}/`, type: "directory", mode: 0o755, mtime, ...owner });
  }
  for (const file of files) {
    pack.entry({ name: at(file.path), mode: file.mode ?? 0o644, mtime, ...owner }, file.bytes);
  }
  pack.finalize();
  return pack;
}

/** A tar's entries as bytes (its end-of-archive blocks left off) and the names of its folders. */
export interface TarBody {
  bytes: Buffer;
  /** Folder names without `./` and the trailing slash (the archived folder itself is ""). */
  folders: ReadonlySet<string>;
}

const BLOCK = 512;

function cString(block: Buffer, start: number, length: number): string {
  const field = block.subarray(start, start + length);
  const end = field.indexOf(0);
  return field.subarray(0, end === -1 ? length : end).toString("utf8");
}

/** The size field of a tar header: octal, or base-256 when its first byte's high bit is set. */
function entrySize(block: Buffer): number {
  if ((block[124]! & 0x80) !== 0) return block.subarray(125, 136).reduce((n, b) => n * 256 + b, 0);
  return Number.parseInt(cString(block, 124, 12).trim() || "0", 8);
}

/**
 * Walks a tar (as Docker's archive API writes one) header by header, without reading content; null
 * when it is cut off inside an entry or a header is not one. Long names (PAX, GNU) are not resolved:
 * such a folder is only missing from `folders`.
 */
export function tarBody(archive: Buffer): TarBody | null {
  const folders = new Set<string>();
  let offset = 0;
  while (offset + BLOCK <= archive.length) {
    const header = archive.subarray(offset, offset + BLOCK);
    if (header.every((b) => b === 0)) break;
    const size = entrySize(header);
    if (!Number.isSafeInteger(size) || size < 0) return null;
    const type = String.fromCharCode(header[156]!);
    if (type === "5") {
      const prefix = cString(header, 257, 6) === "ustar" ? cString(header, 345, 155) : "";
      const name = prefix ? `${prefix}/${cString(header, 0, 100)}` : cString(header, 0, 100);
      folders.add(name.replace(/^(\.\/)+|^\.$/, "").replace(/\/+$/, ""));
    }
    offset += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
  }
  if (offset > archive.length) return null;
  return { bytes: archive.subarray(0, offset), folders };
}

/**
 * One tar: a folder's archive (`seed`, its entries first) and then `files` packed under `under` (a
 * folder the seed holds), so a single extraction at that folder does both.
 */
export function seededPack(seed: TarBody, under: string, files: readonly PackFile[], owner: Owner): Readable {
  const pack = packFiles(files, owner, under);
  return Readable.from(
    (async function* () {
      yield seed.bytes;
      for await (const chunk of pack) yield chunk as Buffer;
    })(),
  );
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
