// The provider's adaptive limit on relayed calls (issue 44 item 6): an attempt holds a slot of the
// limit from before its request until its answer ends (a streamed reply's whole body), and gives it
// back when the call is given up: a call the provider holds open whose harness hung up keeps no other
// call from the provider. Real relay on its unix socket, a loopback provider scripted per request.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AdaptiveLimit } from "../src/agents/adaptive-limit.ts";
import { Relay } from "../src/agents/relay/server.ts";
import type { RelaySession } from "../src/agents/relay/session.ts";
import { TrajectoryRecorder } from "../src/agents/trajectory.ts";
import { type BillingStep, type BillingUpstream, startBillingUpstream } from "./support/billing-upstream.ts";
import { hostileCall, until } from "./support/hostile-client.ts";

const PRICING = { inputPerMTok: 5, outputPerMTok: 25 };
let upstream: BillingUpstream;
/** Per request id: the provider's step, and what the test learns when the request arrives. */
const scripts = new Map<string, { step: BillingStep; arrived: () => void }>();
let nextId = 0;

beforeAll(async () => {
  upstream = await startBillingUpstream((body) => {
    const id = /id=(\d+)/.exec(JSON.stringify(body))?.[1] ?? "";
    const script = scripts.get(id)!;
    script.arrived();
    return script.step;
  });
});
afterAll(async () => {
  await upstream.close();
});

/** A relay whose calls run under `limit`; the provider's 429 is not retried (one attempt a call). */
async function limitedRelay(limit: AdaptiveLimit) {
  const relay = await Relay.start({
    provider: "anthropic",
    upstream: upstream.url,
    apiKey: "sk",
    retry: { maxRetries: 0, baseDelayMs: 1, maxDelayMs: 1 },
    limit,
  });
  const session = relay.openSession({
    tokenBudget: 1_000_000,
    maxTurns: 50,
    pricing: PRICING,
    trajectory: new TrajectoryRecorder(),
  });
  return { relay, session };
}

/** Scripts one call; `reached` settles once the provider has its request. */
function script(step: BillingStep, stream: boolean) {
  const id = ++nextId;
  let arrived = () => {};
  const reached = new Promise<void>((r) => (arrived = r));
  scripts.set(String(id), { step, arrived });
  const body = { model: "m", max_tokens: 100, stream, messages: [{ role: "user", content: `id=${id}` }] };
  return { body, reached };
}

const send = (relay: Relay, session: RelaySession, call: Parameters<typeof hostileCall>[2]) =>
  hostileCall(relay.socketPath, session.token, call);

describe("relayed calls under the provider's adaptive limit", () => {
  it("a call the provider holds gives its slot back when its harness hangs up", async () => {
    const limit = new AdaptiveLimit("billing");
    const { relay, session } = await limitedRelay(limit);
    try {
      // A 429 with one call in flight: level 1 (1 / 2 floors to 0, kept at 1).
      const refused = script({ status: 429, deltas: 1, tokensPerDelta: 1 }, false);
      expect((await send(relay, session, { path: "/v1/messages", body: refused.body })).status).toBe(429);
      expect(limit.level).toBe(1);
      // The provider holds this one before its answer's headers; its harness hangs up once it is there.
      let release = () => {};
      const hold = new Promise<void>((r) => (release = r));
      const held = script({ deltas: 1, tokensPerDelta: 5, hold }, false);
      await send(relay, session, { path: "/v1/messages", body: held.body, hangUpWhen: held.reached });
      // At level 1 the next call gets the only slot only if the held call gave it back.
      const next = script({ deltas: 2, tokensPerDelta: 5 }, false);
      const answered = await send(relay, session, { path: "/v1/messages", body: next.body });
      expect(answered.status).toBe(200);
      expect(upstream.active.count).toBe(1); // the held call is still open at the provider
      release();
      await until(() => session.inFlight === 0);
      // the given-up call counted as no success: one success at level 1 (a probe needs 64)
      expect(limit.level).toBe(1);
      expect(limit.active).toBe(0);
    } finally {
      await relay.close();
    }
  });

  it("a streamed reply holds its slot until its last byte", async () => {
    const limit = new AdaptiveLimit("billing");
    const { relay, session } = await limitedRelay(limit);
    try {
      let release = () => {};
      const hold = new Promise<void>((r) => (release = r));
      const streamed = script({ deltas: 3, tokensPerDelta: 5, text: "<d>", hold }, true);
      let firstDelta = () => {};
      const delta = new Promise<void>((r) => (firstDelta = r));
      const call = send(relay, session, {
        path: "/v1/messages",
        body: streamed.body,
        onText: (text) => {
          if (text.includes("<d>")) firstDelta();
        },
      });
      // The harness has a delta: the answer's headers came long ago, its body is still coming.
      await delta;
      expect(limit.active).toBe(1);
      release();
      expect((await call).status).toBe(200);
      await until(() => session.inFlight === 0);
      expect(limit.active).toBe(0);
    } finally {
      await relay.close();
    }
  });
});
