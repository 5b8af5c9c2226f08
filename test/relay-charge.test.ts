// What the relay charges a model call, whatever its harness does (issue 40 item 1, red team round 3
// S1): a harness that hangs up before a streamed reply's last event, or on a non-streamed call still
// being generated, is charged what the provider billed (the relay reads the reply to its end for the
// usage), and a call whose usage never reaches the relay (the session ended under it) is charged at
// its reservation. And how it reads a stream (issue 44 item 4): a character split between two network
// chunks, CR and CRLF line ends, in every wire format it relays. A raw client -> the relay's socket ->
// a loopback provider that counts what it billed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Relay } from "../src/agents/relay/server.ts";
import type { RelaySession } from "../src/agents/relay/session.ts";
import { TrajectoryRecorder } from "../src/agents/trajectory.ts";
import {
  type BillingStep,
  type BillingUpstream,
  startBillingUpstream,
  type Wire,
} from "./support/billing-upstream.ts";
import { hostileCall, until } from "./support/hostile-client.ts";

let step: BillingStep = { deltas: 1, tokensPerDelta: 1 };
let upstream: BillingUpstream;
const relays: Relay[] = [];
beforeAll(async () => {
  upstream = await startBillingUpstream(() => step);
});
afterAll(async () => {
  for (const r of relays) await r.close();
  await upstream.close();
});

const FRONTIER = { inputPerMTok: 5, outputPerMTok: 25, cacheReadPerMTok: 0.5, cacheWritePerMTok: 6.25 };

async function sessionFor(
  wire: Wire,
): Promise<{ relay: Relay; session: RelaySession; trajectory: TrajectoryRecorder }> {
  const relay = await Relay.start({
    provider: wire === "anthropic" ? "anthropic" : "openai",
    upstream: wire === "anthropic" ? upstream.url : `${upstream.url}/v1`,
    apiKey: "sk-upstream",
    retry: { maxRetries: 0, baseDelayMs: 5, maxDelayMs: 20 },
  });
  relays.push(relay);
  const trajectory = new TrajectoryRecorder();
  const session = relay.openSession({
    tokenBudget: 1_000_000,
    maxTurns: 50,
    pricing: FRONTIER,
    trajectory,
    maxOutputTokens: 2000,
  });
  return { relay, session, trajectory };
}

/** A model call of each wire format asking for 2,000 output tokens. */
function callOf(wire: Wire, stream: boolean): { path: string; body: Record<string, unknown> } {
  if (wire === "anthropic")
    return {
      path: "/v1/messages",
      body: { model: "m", max_tokens: 2000, stream, messages: [{ role: "user", content: "write" }] },
    };
  if (wire === "openai-chat")
    return {
      path: "/v1/chat/completions",
      body: {
        model: "m",
        max_completion_tokens: 2000,
        stream,
        messages: [{ role: "user", content: "write" }],
      },
    };
  return { path: "/v1/responses", body: { model: "m", max_output_tokens: 2000, stream, input: "write" } };
}

const WIRES: Wire[] = ["anthropic", "openai-chat", "openai-responses"];
const MARK = "<d>";

describe("a harness that hangs up is charged what the provider billed", () => {
  for (const wire of WIRES) {
    it(`${wire}: 5 streamed calls hung up on after 3 of 10 deltas`, async () => {
      const { session, relay } = await sessionFor(wire);
      step = { deltas: 10, tokensPerDelta: 100, text: MARK + "x".repeat(397) };
      const before = { ...upstream.billed };
      for (let i = 0; i < 5; i++) {
        const seen = await hostileCall(relay.socketPath, session.token, {
          ...callOf(wire, true),
          hangUpAfter: { copies: 3, marker: MARK },
        });
        expect(seen.status).toBe(200);
        // the relay keeps reading the reply the harness left, for its usage
        await until(() => session.inFlight === 0);
      }
      const billedOutput = upstream.billed.output - before.output;
      const billedInput = upstream.billed.input - before.input;
      const usage = session.usage();
      // Red team round 3 (S1): the relay counted 20 output tokens of 96,300 (Messages), 0 (the OpenAI APIs).
      expect(usage.outputTokens).toBeGreaterThanOrEqual(billedOutput);
      // the relay read every reply to its end: 5 calls x 10 deltas x 100 tokens = 5,000, as billed
      expect(billedOutput).toBe(5000);
      expect(usage.outputTokens).toBe(5000);
      expect(usage.inputTokens).toBe(billedInput);
      expect(usage.callsChargedAtReservation).toBe(0);
      expect(session.reportedUsage()).toEqual(usage);
      // 5,000 output tokens at $25 and the input at $5 per million
      expect(usage.costUsd).toBeCloseTo((5000 * 25 + billedInput * 5) / 1e6, 9);
    });
  }

  it("a session that ends while the reply is still being read charges the call at its reservation", async () => {
    const { session, relay } = await sessionFor("anthropic");
    let release = () => {};
    step = { deltas: 10, tokensPerDelta: 100, text: MARK, hold: new Promise<void>((r) => (release = r)) };
    const slot = upstream.generated.length;
    const call = callOf("anthropic", true);
    await hostileCall(relay.socketPath, session.token, { ...call, hangUpAfter: { copies: 1, marker: MARK } });
    // the provider generated 9 deltas and holds the 10th; the trial ends now
    await until(() => upstream.generated[slot] === 9);
    relay.closeSession(session);
    release();
    await until(() => session.inFlight === 0);
    // {"model":"m","max_tokens":2000,"stream":true,"messages":[{"role":"user","content":"write"}]}
    // is 92 bytes: input bound ceil(92 / 2) = 46; output: the 2,000 granted
    expect(Buffer.byteLength(JSON.stringify(call.body))).toBe(92);
    expect(session.usage()).toMatchObject({
      inputTokens: 46,
      outputTokens: 2000,
      modelCalls: 1,
      callsChargedAtReservation: 1,
    });
    // priced at the dearest rates: 46 x $6.25 (a cache write) + 2,000 x $25 per million = $0.0502875
    expect(session.usage().costUsd).toBe(0.050288);
    expect(session.reportedUsage().modelCalls).toBe(0);
    expect(upstream.generated[slot]! * 100).toBeLessThanOrEqual(2000);
  });

  it("a non-streamed call abandoned while it is generated is charged its reported usage", async () => {
    const { session, relay } = await sessionFor("openai-chat");
    let release = () => {};
    step = { deltas: 10, tokensPerDelta: 100, hold: new Promise<void>((r) => (release = r)) };
    const before = upstream.billed.output;
    const arrived = upstream.billed.requests + 1;
    const seen = await hostileCall(relay.socketPath, session.token, {
      ...callOf("openai-chat", false),
      hangUpWhen: until(() => upstream.billed.requests === arrived),
    });
    expect(seen.status).toBe(0);
    release();
    await until(() => session.inFlight === 0);
    // 10 deltas x 100 tokens = 1,000 generated and billed, and charged
    expect(upstream.billed.output - before).toBe(1000);
    expect(session.usage()).toMatchObject({
      outputTokens: 1000,
      modelCalls: 1,
      callsChargedAtReservation: 0,
    });
  });
});

describe("streams read as the SSE spec and UTF-8 have them (issue 44 item 4)", () => {
  // 3 + 3 + 3 + 2 + 4 = 15 bytes of UTF-8 a delta, each written one byte per network chunk
  const TEXT = "日本語é😀";
  for (const wire of WIRES) {
    for (const lineEnd of ["\r", "\r\n"] as const) {
      it(`${wire}, ${JSON.stringify(lineEnd)} line ends, every byte its own chunk`, async () => {
        const { session, relay, trajectory } = await sessionFor(wire);
        step = { deltas: 3, tokensPerDelta: 5, text: TEXT, lineEnd, pieceBytes: 1 };
        const seen = await hostileCall(relay.socketPath, session.token, callOf(wire, true));
        expect(seen.status).toBe(200);
        await until(() => session.inFlight === 0);
        // before: CR-only streams parsed no event (usage 0), split characters became U+FFFD
        expect(session.usage()).toMatchObject({ outputTokens: 15, callsChargedAtReservation: 0 });
        const model = trajectory.events.find((e) => e.type === "model") as { text?: string } | undefined;
        expect(model?.text).toBe(TEXT.repeat(3));
      });
    }
  }
});
