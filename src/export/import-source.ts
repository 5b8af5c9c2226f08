// A third party's task folder read defensively for `kgate import`: every entry is judged by lstat
// before anything is opened, so a FIFO, socket or device (which would block a read forever), a
// symbolic or hard link (which could pull a host file in) and a file over the task size cap are
// refused by name; a file is then read through a descriptor opened without following links and
// without blocking, and judged again by fstat (the folder may change under the import).
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readSync,
  type Stats,
} from "node:fs";
import path from "node:path";
import { DEFAULT_ENVIRONMENT_FILE_MB } from "../task/index.ts";
import { HarborTaskError } from "./harbor-toml.ts";

/** The largest file an import reads: the cap a task's environment files have (64 MiB). */
export const IMPORT_FILE_BYTES = DEFAULT_ENVIRONMENT_FILE_MB * 1024 * 1024;

export interface SourceFile {
  /** POSIX path relative to the folder. */
  path: string;
  size: number;
  /** Permission bits (0o777). */
  mode: number;
}

function kindOf(stat: Stats): string | null {
  if (stat.isFIFO()) return "a FIFO (named pipe)";
  if (stat.isSocket()) return "a socket";
  if (stat.isBlockDevice() || stat.isCharacterDevice()) return "a device";
  return null;
}

/** Why an entry may not be imported, or null for a regular file or folder within the cap. */
function refusal(stat: Stats): string | null {
  if (stat.isSymbolicLink()) return "is a symbolic link; a task folder to import must hold none";
  const kind = kindOf(stat);
  if (kind) return `is ${kind}; a task folder to import must hold regular files and folders only`;
  if (stat.isFile() && stat.nlink > 1) {
    return `is a hard link (${stat.nlink} names for one file); a task folder to import must hold none (copy the file in)`;
  }
  if (stat.isFile() && stat.size > IMPORT_FILE_BYTES) {
    return `is ${stat.size} bytes, over the cap of ${DEFAULT_ENVIRONMENT_FILE_MB} MiB a task file may have (limits.environmentFileMb)`;
  }
  return null;
}

/** Every regular file below `dir` (sorted), after refusing the first entry that may not be imported. */
export function scanSource(dir: string): SourceFile[] {
  const files: SourceFile[] = [];
  const walk = (abs: string, rel: string) => {
    for (const name of readdirSync(abs).sort()) {
      const child = path.join(abs, name);
      const childRel = rel ? `${rel}/${name}` : name;
      const stat = lstatSync(child);
      const why = refusal(stat);
      if (why) throw new HarborTaskError(`${child} ${why}`);
      if (stat.isDirectory()) walk(child, childRel);
      else files.push({ path: childRel, size: stat.size, mode: stat.mode & 0o777 });
    }
  };
  walk(dir, "");
  return files;
}

/** A file's bytes, read only if it still is a regular file with one name, within the cap. */
export function readSourceFile(file: string): Buffer {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    throw new HarborTaskError(`${file} cannot be read: ${(err as Error).message}`);
  }
  try {
    const stat = fstatSync(fd);
    const why = stat.isFile()
      ? refusal(stat)
      : `is not a regular file (${kindOf(stat) ?? "a folder"}); a task folder to import must hold regular files and folders only`;
    if (why) throw new HarborTaskError(`${file} ${why}`);
    // Read at most one byte over the cap: a file that grew since fstat is refused, never read whole.
    const bytes = Buffer.alloc(Math.min(stat.size, IMPORT_FILE_BYTES) + 1);
    let length = 0;
    for (let n = -1; n !== 0 && length < bytes.length; length += n) {
      n = readSync(fd, bytes, length, bytes.length - length, null);
    }
    if (length > IMPORT_FILE_BYTES) throw new HarborTaskError(`${file} grew over the cap while it was read`);
    return bytes.subarray(0, length);
  } finally {
    closeSync(fd);
  }
}
