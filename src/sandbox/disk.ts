// The sandbox's capped disk: every writable folder of a container (/home/agent and any extra
// writable folder) is a tmpfs volume of its own, sized by the task's diskMb, seeded with what the
// image holds at that path (a tmpfs volume gets no copy-up from the image), removed with the sandbox.
import { randomUUID } from "node:crypto";
import type { Readable } from "node:stream";
import type { DockerClient } from "./docker.ts";

/** How the disk of a sandbox is capped: a tmpfs volume per writable folder (see docs/security.md). */
export const DISK_CAP_MECHANISM = "tmpfs-volume";
export type DiskCapMechanism = typeof DISK_CAP_MECHANISM;

/** Largest seed copied from the image per folder (the kgate images hold 20 KiB in /home/agent). */
export const MAX_SEED_BYTES = 64 * 1024 * 1024;

/** A fresh volume name per writable folder of one sandbox. */
export function volumeName(): string {
  return `kgate-disk-${randomUUID()}`;
}

/** Mount options of a sandbox volume: the size cap, owned by the sandbox user, no setuid or devices. */
export function tmpfsVolumeOptions(sizeMb: number, uid: number, gid: number): Record<string, string> {
  return {
    type: "tmpfs",
    device: "tmpfs",
    o: `size=${sizeMb}m,uid=${uid},gid=${gid},mode=0755,nosuid,nodev`,
  };
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
