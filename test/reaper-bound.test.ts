// The reaper is bounded: a Docker daemon that takes a request and never answers (as one deadlocked
// on a container did, hanging every later run in its first sandbox's sweep) fails the sweep as
// unavailable within its bound, and the abandoned request is closed, not left open. The bound's clock
// is faked and moved on only once the daemon holds the request, so a slow machine changes nothing.
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { DockerClient } from "../src/sandbox/docker/client.ts";
import { reapDeadRuns, removeRunContainers } from "../src/sandbox/docker/reaper.ts";
import { SandboxUnavailableError } from "../src/sandbox/index.ts";

/**
 * A daemon on a unix socket that reads every request and answers none; it notes what it was asked and
 * what was closed, and says when the first request arrived and when its connection closed.
 */
async function silentDaemon() {
  const dir = mkdtempSync(path.join(tmpdir(), "kgate-silent-daemon-"));
  const socketPath = path.join(dir, "docker.sock");
  const asked: string[] = [];
  const closed: string[] = [];
  let onAsked = () => {};
  let onClosed = () => {};
  const firstAsked = new Promise<void>((resolve) => (onAsked = resolve));
  const firstClosed = new Promise<void>((resolve) => (onClosed = resolve));
  const server = createServer((req: IncomingMessage) => {
    asked.push(`${req.method} ${req.url}`);
    onAsked();
    req.socket.on("close", () => {
      closed.push(`${req.method} ${req.url}`);
      onClosed();
    });
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  return {
    client: new DockerClient({ socketPath }),
    asked,
    closed,
    firstAsked,
    firstClosed,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

let daemon: Awaited<ReturnType<typeof silentDaemon>> | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await daemon?.close();
  daemon = undefined;
});

describe("a daemon that never answers the reaper", () => {
  it("fails the sweep as unavailable within its bound, closing the request it abandoned", async () => {
    daemon = await silentDaemon();
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    let settled = false;
    const sweep = reapDeadRuns(daemon.client, { timeoutMs: 300 })
      .catch((e: unknown) => e)
      .finally(() => (settled = true));
    await daemon.firstAsked;
    await vi.advanceTimersByTimeAsync(299);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const err = await sweep;
    expect(err).toBeInstanceOf(SandboxUnavailableError);
    expect((err as Error).message).toBe("the Docker daemon did not answer the reaper within 0.3 s");
    // The sweep's first call, the container list, was asked and then given up (its socket closed).
    await daemon.firstClosed;
    expect(daemon.asked).toHaveLength(1);
    expect(daemon.asked[0]).toMatch(/^GET \/containers\/json\?all=true&filters=/);
    expect(daemon.closed).toEqual(daemon.asked);
  });

  it("bounds the removal of a run's containers on interrupt the same way", async () => {
    daemon = await silentDaemon();
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const removal = removeRunContainers("run-x", daemon.client, { timeoutMs: 300 }).catch((e: unknown) => e);
    await daemon.firstAsked;
    await vi.advanceTimersByTimeAsync(300);
    const err = await removal;
    expect(err).toBeInstanceOf(SandboxUnavailableError);
    expect((err as Error).message).toBe(
      "the Docker daemon did not answer the removal of run run-x within 0.3 s",
    );
    await daemon.firstClosed;
    expect(daemon.asked).toHaveLength(1);
    expect(daemon.closed).toEqual(daemon.asked);
  });
});
