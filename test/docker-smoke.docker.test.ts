// The Docker path from day one: a real container started through dockerode prints what we asked.
import { PassThrough } from "node:stream";
import Docker from "dockerode";
import { describe, expect, it } from "vitest";
import { ensureBusyboxImage } from "./support/busybox-image.ts";

describe("Docker smoke test", () => {
  it("runs a container through dockerode and captures its output", async () => {
    const docker = new Docker();
    await docker.ping();
    const image = await ensureBusyboxImage(docker);
    const container = await docker.createContainer({
      Image: image,
      Cmd: [
        "/bin/busybox",
        "sh",
        "-c",
        "echo hello from $(/bin/busybox id -u); /bin/busybox ls /nonexistent",
      ],
      User: "65534:65534",
      HostConfig: { NetworkMode: "none", CapDrop: ["ALL"], AutoRemove: false },
      Labels: { "kgate.test": "smoke" },
    });
    try {
      await container.start();
      const result = await container.wait();
      const logs = await container.logs({ stdout: true, stderr: true, follow: true });
      const stdout = new PassThrough();
      const stderr = new PassThrough();
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      stdout.on("data", (c: Buffer) => out.push(c));
      stderr.on("data", (c: Buffer) => err.push(c));
      docker.modem.demuxStream(logs, stdout, stderr);
      await new Promise((resolve) => logs.on("end", resolve));
      expect(Buffer.concat(out).toString()).toBe("hello from 65534\n");
      expect(Buffer.concat(err).toString()).toContain("nonexistent");
      expect(result.StatusCode).not.toBe(0);
    } finally {
      await container.remove({ force: true });
    }
  });
});
