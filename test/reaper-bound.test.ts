// The reaper is bounded: a Docker daemon that takes a request and never answers (as one deadlocked
// on a container did, hanging every later run in its first sandbox's sweep) fails the sweep as
// unavailable within its bound, and the abandoned request is closed, not left open.
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DockerClient } from "../src/sandbox/docker/client.ts";
import { reapDeadRuns, removeRunContainers } from "../src/sandbox/docker/reaper.ts";
import { SandboxUnavailableError } from "../src/sandbox/index.ts";

/** A daemon on a unix socket that reads every request and answers none; it notes what it was asked and what was closed. */
async function silentDaemon() {
  const dir = mkdtempSync(path.join(tmpdir(), "kgate-silent-daemon-"));
  const socketPath = path.join(dir, "docker.sock");
  const asked: string[] = [];
  const closed: string[] = [];
  const server = createServer((req: IncomingMessage) => {
    asked.push(`${req.method} ${req.url}`);
    req.socket.on("close", () => closed.push(`${req.method} ${req.url}`));
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  return {
    client: new DockerClient({ socketPath }),
    asked,
    closed,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

let daemon: Awaited<ReturnType<typeof silentDaemon>> | undefined;
afterEach(async () => {
  await daemon?.close();
  daemon = undefined;
});

describe("a daemon that never answers the reaper", () => {
  it("fails the sweep as unavailable within its bound, closing the request it abandoned", async () => {
    daemon = await silentDaemon();
    const err = await reapDeadRuns(daemon.client, { timeoutMs: 300 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SandboxUnavailableError);
    expect((err as Error).message).toBe("the Docker daemon did not answer the reaper within 0.3 s");
    // The sweep's first call, the container list, was asked and then given up (its socket closed).
    expect(daemon.asked).toHaveLength(1);
    expect(daemon.asked[0]).toMatch(/^GET \/containers\/json\?all=true&filters=/);
    await expect.poll(() => daemon?.closed).toEqual(daemon.asked);
  });

  it("bounds the removal of a run's containers on interrupt the same way", async () => {
    daemon = await silentDaemon();
    const err = await removeRunContainers("run-x", daemon.client, { timeoutMs: 300 }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(SandboxUnavailableError);
    expect((err as Error).message).toBe(
      "the Docker daemon did not answer the removal of run run-x within 0.3 s",
    );
    await expect.poll(() => daemon?.closed).toEqual(daemon.asked);
  });
});
