// The sandbox's capped disk: every writable folder of a container (/home/agent and any extra
// writable folder) is a tmpfs volume of its own (anonymous, declared by the container), sized by the
// task's diskMb, seeded with what the image holds at that path (a tmpfs volume gets no copy-up from
// the image), removed with the container;
// /tmp and /dev/shm are tmpfs mounts of the container. Each has an inode cap as well as a size.
import type { Readable } from "node:stream";
import type { DockerClient } from "./client.ts";

/** How the disk of a sandbox is capped: a tmpfs volume per writable folder (see docs/security.md). */
export const DISK_CAP_MECHANISM = "tmpfs-volume";

/** Largest seed copied from the image per folder (the kgate images hold 20 KiB in /home/agent). */
export const MAX_SEED_BYTES = 64 * 1024 * 1024;

/**
 * Files (and folders) a sandbox tmpfs of `sizeMb` holds: one per KiB of its size. A file costs the
 * kernel about a KiB of memory (inode and dentry) whatever it holds, so a folder's files cost at most
 * about its size in memory, and an agent that creates empty files runs out of them (ENOSPC, judged
 * disk-full) before it fills the memory limit (tmpfs's default is half the host's memory pages).
 */
export function inodesOf(sizeMb: number): number {
  return sizeMb * 1024;
}

/** Mount options of a sandbox volume: the size and inode caps, owned by the sandbox user, no setuid or devices. */
export function tmpfsVolumeOptions(sizeMb: number, uid: number, gid: number): Record<string, string> {
  return {
    type: "tmpfs",
    device: "tmpfs",
    o: `size=${sizeMb}m,nr_inodes=${inodesOf(sizeMb)},uid=${uid},gid=${gid},mode=0755,nosuid,nodev`,
  };
}

/** Size of /dev/shm (Docker's default, now mounted by kgate to cap its inodes too). */
export const SHM_MB = 64;

/** The container's own tmpfs mounts: /tmp (half the memory, at least 16 MiB) and /dev/shm, capped alike. */
export function containerTmpfs(memoryMb: number): Record<string, string> {
  const tmpMb = Math.max(16, Math.floor(memoryMb / 2));
  const mount = (mb: number) => `rw,nosuid,nodev,size=${mb}m,nr_inodes=${inodesOf(mb)},mode=1777`;
  return { "/tmp": mount(tmpMb), "/dev/shm": mount(SHM_MB) };
}

/** Every place the agent can write to, as fullFolder() checks them: the volumes, then the tmpfs mounts. */
export function writablePlaces(volumeRoots: readonly string[]): string[] {
  return [...volumeRoots, ...Object.keys(containerTmpfs(0))];
}

async function readCapped(stream: Readable, maxBytes: number, what: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      stream.destroy();
      throw new Error(`${what} is over ${maxBytes} bytes: too large to seed a sandbox volume`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

const seeds = new WeakMap<DockerClient, Map<string, Promise<Buffer | null>>>();

/**
 * A tar of what `image` holds under `dir` (entries relative to it, `./...`), or null when the image has
 * no such folder; read once per client and image from a created, never started, labelled container.
 */
export function imageSeed(
  docker: DockerClient,
  image: string,
  dir: string,
  labels: Record<string, string>,
): Promise<Buffer | null> {
  const byKey = seeds.get(docker) ?? new Map<string, Promise<Buffer | null>>();
  seeds.set(docker, byKey);
  const key = `${image}\0${dir}`;
  let seed = byKey.get(key);
  if (!seed) {
    seed = (async () => {
      const id = await docker.createSeedContainer(image, labels);
      try {
        const archive = await docker.getArchive(id, `${dir}/.`);
        return archive ? await readCapped(archive, MAX_SEED_BYTES, `${image}:${dir}`) : null;
      } finally {
        await docker.removeContainer(id).catch(() => {});
      }
    })();
    byKey.set(key, seed);
    seed.catch(() => byKey.delete(key));
  }
  return seed;
}
