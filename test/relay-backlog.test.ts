// The relay socket's accept queue (issue 41 item 6): under a burst of agent connections the forwarder's
// channel opens a relay stream per connection faster than a busy event loop accepts them, and a unix
// socket's connect fails at once (EAGAIN) when the queue is full, where TCP's would wait; the harness's
// own connection died with it ("fetch failed: other side closed"). Node's default queue is 511. The
// burst is made exact here: every connect is issued in one synchronous run, before the relay's event
// loop can accept any, so the queue alone decides which connects succeed (no timing involved).
import { readFileSync } from "node:fs";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Relay } from "../src/agents/relay/server.ts";

/** Past Node's default queue (511), within Linux's default cap (net.core.somaxconn, 4096). */
const BURST = 1500;

let relay: Relay;
beforeAll(async () => {
  relay = await Relay.start({
    provider: "anthropic",
    upstream: "http://127.0.0.1:9",
    apiKey: null,
    retry: { maxRetries: 0, baseDelayMs: 1, maxDelayMs: 1 },
  });
});
afterAll(async () => {
  await relay.close();
});

describe("the relay socket's accept queue", () => {
  it(`takes a burst of ${BURST} connections opened before it accepts any`, async () => {
    // the kernel caps every socket's queue at net.core.somaxconn (4096 since Linux 5.4)
    const cap = Number(readFileSync("/proc/sys/net/core/somaxconn", "utf8"));
    expect(cap, "net.core.somaxconn is below the burst: raise it (sysctl)").toBeGreaterThanOrEqual(BURST);
    const outcomes = await Promise.all(
      Array.from(
        { length: BURST },
        () =>
          new Promise<string>((resolve) => {
            const socket = connect(relay.socketPath);
            socket.once("connect", () => {
              resolve("connected");
              socket.destroy();
            });
            socket.once("error", (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
          }),
      ),
    );
    // with Node's default queue, 1500 - 512 = 988 of them failed with EAGAIN (the queue holds 511 + 1)
    const failed = outcomes.filter((o) => o !== "connected");
    expect({ failed: failed.length, codes: [...new Set(failed)] }).toEqual({ failed: 0, codes: [] });
  });
});
