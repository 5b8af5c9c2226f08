// Test support: a tiny image made from the host's static busybox, importable without any registry.
import { readFileSync } from "node:fs";
import type Docker from "dockerode";
import tar from "tar-stream";

export const BUSYBOX_IMAGE = "kgate-test-busybox:latest";

export async function ensureBusyboxImage(docker: Docker): Promise<string> {
  const existing = await docker.listImages({ filters: { reference: [BUSYBOX_IMAGE] } });
  if (existing.length > 0) return BUSYBOX_IMAGE;
  const pack = tar.pack();
  pack.entry({ name: "bin/", type: "directory", mode: 0o755 });
  pack.entry({ name: "bin/busybox", mode: 0o755 }, readFileSync("/bin/busybox"));
  pack.entry({ name: "bin/sh", type: "symlink", linkname: "busybox" });
  pack.entry({ name: "tmp/", type: "directory", mode: 0o1777 });
  pack.finalize();
  const [repo, tag] = BUSYBOX_IMAGE.split(":");
  const stream = await docker.importImage(pack as unknown as NodeJS.ReadableStream, { repo, tag });
  await new Promise((resolve, reject) =>
    docker.modem.followProgress(stream, (err) => (err ? reject(err) : resolve(null))),
  );
  return BUSYBOX_IMAGE;
}
