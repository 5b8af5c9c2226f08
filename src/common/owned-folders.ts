// Host folders kgate makes in the temp directory (the relay's socket folder, a bootstrap root file
// system, the verifiers compiled for a process): the name carries the owning process's pid and start
// time, so the reaper removes the folders of processes that are gone (killed with SIGKILL, say) and
// never those of live ones.
import { type Dirent, lstatSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { hostname, tmpdir } from "node:os";
import path from "node:path";
import { ownerAlive, ownerLabel } from "./owner.ts";

export type FolderKind = "relay" | "rootfs" | "verifiers";

/** `kgate-<kind>-<pid>-<start time>-XXXXXX`, made by ownedTempDir. */
const OWNED = /^kgate-(?:relay|rootfs|verifiers)-(\d+)-(\d+)-[A-Za-z0-9]{6}$/;
/** `kgate-<kind>-XXXXXX`, made before folders carried their owner. */
const OWNERLESS = /^kgate-(?:relay|rootfs)-[A-Za-z0-9]{6}$/;
/** A folder without an owner in its name is left alone until it is this old. */
export const OWNERLESS_MIN_AGE_MS = 60 * 60 * 1000;

/** A new folder in the temp directory (or `parent`) whose name says which process owns it. */
export function ownedTempDir(kind: FolderKind, parent: string = tmpdir()): string {
  const [, pid, start] = ownerLabel().split("/");
  return mkdtempSync(path.join(parent, `kgate-${kind}-${pid}-${start}-`));
}

/** Whether a unix socket in the folder accepts connections (a live relay); unsure counts as yes. */
async function socketListening(dir: string): Promise<boolean> {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return true;
  }
  for (const entry of entries.filter((e) => e.isSocket())) {
    const listening = await new Promise<boolean>((resolve) => {
      const socket = connect(path.join(dir, entry.name));
      const done = (answer: boolean) => {
        socket.destroy();
        resolve(answer);
      };
      socket.setTimeout(1000, () => done(true));
      socket.once("connect", () => done(true));
      socket.once("error", (err: NodeJS.ErrnoException) =>
        done(err.code !== "ECONNREFUSED" && err.code !== "ENOENT"),
      );
    });
    if (listening) return true;
  }
  return false;
}

async function isLeftover(dir: string, name: string, now: number): Promise<boolean> {
  const owned = OWNED.exec(name);
  if (owned) return !ownerAlive(`${hostname()}/${owned[1]}/${owned[2]}`);
  if (!OWNERLESS.test(name)) return false;
  const stat = lstatSync(dir, { throwIfNoEntry: false });
  if (!stat?.isDirectory() || now - stat.mtimeMs < OWNERLESS_MIN_AGE_MS) return false;
  return !(await socketListening(dir));
}

/**
 * Removes the kgate folders in the temp directory (or `dir`) whose owner process is gone, and those
 * without an owner in their name that are over an hour old and serve no socket. Returns their paths;
 * folders it may not remove (another user's) are skipped.
 */
export async function reapDeadFolders(options: { dir?: string; now?: number } = {}): Promise<string[]> {
  const parent = options.dir ?? tmpdir();
  const now = options.now ?? Date.now();
  let entries: Dirent[];
  try {
    entries = readdirSync(parent, { withFileTypes: true });
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const entry of entries) {
    if (!entry.isDirectory() || !entry.name.startsWith("kgate-")) continue;
    const dir = path.join(parent, entry.name);
    if (!(await isLeftover(dir, entry.name, now))) continue;
    try {
      rmSync(dir, { recursive: true, force: true });
      removed.push(dir);
    } catch {
      // Not ours to remove (another user's folder in a shared /tmp): leave it.
    }
  }
  return removed;
}
