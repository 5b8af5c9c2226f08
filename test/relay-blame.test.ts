// Whose failure a relayed call is (issue 40 item 2, red team round 3 L1 and M4): headers of a request
// reach the provider by an allow-list, so none can make the relay's own HTTP client throw (which was
// recorded as the provider being unreachable: infrastructure, retried, never counted); a request that
// cannot leave the host is the request's fault; a provider failure counts as infrastructure only while
// it is the last answer the harness heard; and a request whose body dribbles in is cut at the relay's
// request deadline instead of holding an in-flight slot. A raw client -> the relay -> a loopback upstream.
import { connect } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { harnessDeathError } from "../src/agents/installed/outcome.ts";
import { Relay, type RelayOptions } from "../src/agents/relay/server.ts";
import type { RelaySession } from "../src/agents/relay/session.ts";
import { requestFault } from "../src/agents/relay/upstream.ts";
import { TrajectoryRecorder } from "../src/agents/trajectory.ts";
import { type CaptureUpstream, sendRaw, startCaptureUpstream } from "./support/capture-upstream.ts";
import { hostileCall, until } from "./support/hostile-client.ts";

let upstream: CaptureUpstream;
let relay: Relay | undefined;
beforeAll(async () => {
  upstream = await startCaptureUpstream();
});
afterEach(async () => {
  upstream.stall = null;
  await relay?.close();
  relay = undefined;
});
afterAll(async () => upstream.close());

async function open(options: Partial<RelayOptions> = {}): Promise<RelaySession> {
  relay = await Relay.start({
    provider: "anthropic",
    upstream: upstream.url,
    apiKey: "sk-real",
    retry: { maxRetries: 2, baseDelayMs: 5, maxDelayMs: 20 },
    ...options,
  });
  return relay.openSession({
    tokenBudget: 1_000_000,
    maxTurns: 50,
    pricing: null,
    trajectory: new TrajectoryRecorder(),
    maxOutputTokens: 100,
  });
}

const BODY = JSON.stringify({ model: "x", max_tokens: 10, messages: [{ role: "user", content: "hi" }] });
const call = (session: RelaySession, headers: Record<string, string> = {}) =>
  sendRaw(relay!.socketPath, session.token, { method: "POST", path: "/v1/messages", body: BODY, headers });

describe("headers reach the provider by an allow-list", () => {
  it("Expect, Upgrade and hop-by-hop headers are dropped: the call goes through, no infra failure (L1)", async () => {
    const session = await open();
    // before: Node's fetch threw ("expect header not supported", "invalid upgrade header") before
    // sending; the relay answered 502 "provider unreachable" after 3 retries and set infraFailure
    const planted: Array<Record<string, string>> = [
      { expect: "100-continue" },
      { upgrade: "h2c" },
      { "keep-alive": "timeout=5" },
      { te: "trailers" },
    ];
    for (const headers of planted) {
      const before = upstream.seen.length;
      expect((await call(session, headers)).status).toBe(200);
      expect(upstream.seen.length - before).toBe(1);
    }
    expect(session.infraFailure).toBeNull();
  });

  it("passes only what the API reads and what names the client (M2)", async () => {
    const session = await open();
    const probe: Record<string, string> = {
      "anthropic-version": "2023-06-01",
      "user-agent": "claude-cli/2.1.332 (external, cli)",
      "x-stainless-lang": "js",
      "x-stainless-retry-count": "0",
      "openai-beta": "assistants=v2",
      "idempotency-key": "rt3-fixed-key",
      "x-forwarded-for": "203.0.113.7",
      forwarded: "for=203.0.113.7",
      cookie: "session=abc",
      "api-key": "sk-agent-own",
      "x-goog-api-key": "agent",
      "anthropic-dangerous-direct-browser-access": "true",
      "content-encoding": "gzip",
      "x-anthropic-billing-header": "rt3",
      "x-app": "cli",
      "x-stainless-os": "Linux;x=1",
    };
    const before = upstream.seen.length;
    expect((await call(session, probe)).status).toBe(200);
    const sent = upstream.seen[before]!.headers;
    const passed = Object.keys(probe).filter((h) => sent[h] !== undefined);
    // x-stainless-os holds characters no OS name has: dropped with the headers off the list
    expect(passed.sort()).toEqual([
      "anthropic-version",
      "user-agent",
      "x-stainless-lang",
      "x-stainless-retry-count",
    ]);
    expect(sent["x-api-key"]).toBe("sk-real");
    expect(sent["content-type"]).toBe("application/json");
  });

  it("a bogus anthropic-version is replaced by the API's first (the API refuses a request without one)", async () => {
    const session = await open();
    const before = upstream.seen.length;
    await call(session, { "anthropic-version": "2099-12-31\r\nx: y" }).catch(() => null);
    await call(session, { "anthropic-version": "latest" });
    expect(upstream.seen.at(-1)!.headers["anthropic-version"]).toBe("2023-06-01");
    expect(upstream.seen.length).toBeGreaterThan(before);
  });
});

describe("a request that cannot leave the host is the request's fault", () => {
  it("undici's refusals of a request are told apart from an unreachable provider", async () => {
    // the errors Node's fetch really throws, before sending anything
    const expect100 = await fetch(upstream.url, {
      method: "POST",
      headers: { expect: "100-continue" },
      body: "x",
    }).catch((e) => e);
    const upgrade = await fetch(upstream.url, {
      method: "POST",
      headers: { upgrade: "h2c" },
      body: "x",
    }).catch((e) => e);
    const refused = await fetch("http://127.0.0.1:9/", { method: "POST", body: "x" }).catch((e) => e);
    expect(requestFault(expect100)?.message).toBe(
      "the request could not be sent: expect header not supported",
    );
    expect(requestFault(upgrade)?.message).toBe("the request could not be sent: invalid upgrade header");
    expect(requestFault(refused)).toBeNull();
  });
});

describe("a provider failure is infrastructure only while it is the harness's last answer", () => {
  it("after a provider's 504, a refusal of the relay's own makes the dead harness the agent's", async () => {
    const session = await open({
      upstreamTimeoutMs: 200,
      retry: { maxRetries: 0, baseDelayMs: 5, maxDelayMs: 20 },
    });
    upstream.stall = "headers";
    expect((await call(session)).status).toBe(504);
    expect(session.infraFailure).toMatchObject({ kind: "provider-outage" });
    upstream.stall = null;
    // the agent's own flood: the relay refuses a path it does not forward (as it refuses a 5th call in flight)
    const refused = await sendRaw(relay!.socketPath, session.token, { method: "GET", path: "/v1/files" });
    expect(refused.status).toBe(404);
    expect(session.infraFailure).toBeNull();
    const death = {
      harness: "claude-code",
      exitCode: 1,
      stderr: "429",
      turns: 1,
      brokenChannel: null,
      rejection: null,
    };
    expect(harnessDeathError({ ...death, infraFailure: session.infraFailure }).kind).toBe("agent-exit");
  });

  it("a failure on a call whose harness had hung up is written down, not made the trial's", async () => {
    const session = await open({
      upstreamTimeoutMs: 200,
      retry: { maxRetries: 0, baseDelayMs: 5, maxDelayMs: 20 },
    });
    upstream.stall = "headers";
    const arrived = upstream.seen.length + 1;
    await hostileCall(relay!.socketPath, session.token, {
      path: "/v1/messages",
      body: JSON.parse(BODY),
      hangUpWhen: until(() => upstream.seen.length === arrived),
    });
    await until(() => session.inFlight === 0);
    expect(session.infraFailure).toBeNull();
    // the request reached the provider, which never answered: charged at its reservation,
    // {"model":"x","max_tokens":10,"messages":[{"role":"user","content":"hi"}]} is 73 bytes:
    // ceil(73 / 2) = 37 input and the 10 output tokens granted
    expect(Buffer.byteLength(BODY)).toBe(73);
    expect(session.usage()).toMatchObject({
      inputTokens: 37,
      outputTokens: 10,
      callsChargedAtReservation: 1,
    });
  });
});

describe("a request's head and body have a deadline (M4)", () => {
  it("a body sent a byte at a time is cut with 408 and frees its in-flight slot", async () => {
    const session = await open({ requestTimeoutMs: 400 });
    const socket = connect(relay!.socketPath);
    let answer = "";
    let closed = false;
    socket.on("data", (d) => (answer += d.toString()));
    socket.on("close", () => (closed = true));
    socket.on("error", () => {});
    // the request's slot, seen as it is taken (a poll could miss its whole life on a loaded machine:
    // it is given back as soon as the deadline cuts the body)
    let held = session.inFlight;
    let taken = () => {};
    const slotTaken = new Promise<void>((resolve) => (taken = resolve));
    Object.defineProperty(session, "inFlight", {
      get: () => held,
      set: (n: number) => {
        held = n;
        if (n === 1) taken();
      },
    });
    socket.write(
      `POST /v1/messages HTTP/1.1\r\nhost: r\r\nx-api-key: ${session.token}\r\ncontent-length: 100000\r\n\r\n{`,
    );
    await slotTaken;
    // one byte every 50 ms, for as long as the relay keeps the connection (before: 300 s, Node's default);
    // before each, the socket reads what came meanwhile (the relay runs in this process: its answer is
    // read in the poll phase before setImmediate's turn), as a write to a socket the relay closed fails
    // (EPIPE) and destroys it unread, losing the 408
    while (!closed && answer === "") {
      socket.write(" ");
      await new Promise((r) => setTimeout(r, 50));
      await new Promise((r) => setImmediate(r));
    }
    await until(() => closed);
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    await until(() => session.inFlight === 0);
    expect((await call(session)).status).toBe(200);
  });
});
