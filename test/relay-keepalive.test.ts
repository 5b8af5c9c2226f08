// The relay's connections are one request each (found on issue 41 item 6, the relay channel's harness
// failing a fetch): a harness never sends a call on a kept-alive connection the relay closes on its
// own clock (Node's 5 s idle) while the call is on its way through a slow exec stream. Real parts: the
// relay, the in-container forwarder as a host process and its channel, the loopback model server.
import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { Relay } from "../src/agents/relay/server.ts";
import { TrajectoryRecorder } from "../src/agents/trajectory.ts";
import { startForwarder } from "./support/forwarder.ts";
import { type ModelServer, startModelServer } from "./support/model-server.ts";

let server: ModelServer | undefined;
let relay: Relay | undefined;
afterEach(async () => {
  await relay?.close();
  await server?.close();
  relay = server = undefined;
});

async function relayFor(script: Parameters<typeof startModelServer>[0]) {
  server = await startModelServer(script, { requireKey: "sk-real" });
  relay = await Relay.start({
    provider: "anthropic",
    upstream: server.anthropicUrl,
    apiKey: "sk-real",
    retry: { maxRetries: 0, baseDelayMs: 1, maxDelayMs: 1 },
  });
  const trajectory = new TrajectoryRecorder();
  const session = relay.openSession({ tokenBudget: 100_000, maxTurns: 10, pricing: null, trajectory });
  return { session, url: await startForwarder(relay.socketPath) };
}

describe("the relay's connections through the forwarder's channel", () => {
  it("every answer says `connection: close` and the relay ends the connection after it", async () => {
    const { session, url } = await relayFor([{ text: "hi" }]);
    const port = Number(new URL(url).port);
    const body = JSON.stringify({ model: "m", max_tokens: 10, messages: [{ role: "user", content: "x" }] });
    const asks = [
      // a model call, and a refusal (no session) and a route the relay does not serve
      `POST /v1/messages HTTP/1.1\r\nhost: r\r\nx-api-key: ${session.token}\r\nanthropic-version: 2023-06-01\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
      "GET /v1/models HTTP/1.1\r\nhost: r\r\n\r\n",
      `DELETE /v1/models HTTP/1.1\r\nhost: r\r\nx-api-key: ${session.token}\r\n\r\n`,
    ];
    for (const ask of asks) {
      const socket = connect(port, "127.0.0.1");
      let answer = "";
      socket.on("data", (d) => (answer += d.toString()));
      socket.write(ask);
      // resolves only when the relay's side ends the connection (the old relay kept it open, idle)
      await new Promise<void>((resolve) => socket.on("end", resolve));
      socket.destroy();
      expect(answer).toMatch(/^HTTP\/1\.1 (200|401|405) /);
      expect(answer.toLowerCase()).toContain("\r\nconnection: close\r\n");
    }
    expect(server!.requests).toHaveLength(1);
  });
});
