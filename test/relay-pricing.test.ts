// Every billing dimension priced, or refused (issue 40 item 4, red team round 3 M3): 1-hour cache
// writes at their own rate, long-context tiers, and the worst case --max-cost reserves bounding what
// any call the relay lets through can cost. Prices: Claude Opus 4.5 as published ($5 input, $25
// output, $0.50 cache read, $6.25 5-minute and $10 1-hour cache writes per million tokens).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AgentConfig, type Pricing } from "../src/agents/config.ts";
import { Relay } from "../src/agents/relay/server.ts";
import { TrajectoryRecorder } from "../src/agents/trajectory.ts";
import { UsageMeter } from "../src/agents/usage.ts";
import { worstCaseUsd } from "../src/cost/worst-case.ts";
import { type BillingUpstream, startBillingUpstream } from "./support/billing-upstream.ts";
import { hostileCall, until } from "./support/hostile-client.ts";

const OPUS: Pricing = {
  inputPerMTok: 5,
  outputPerMTok: 25,
  cacheReadPerMTok: 0.5,
  cacheWritePerMTok: 6.25,
  cacheWrite1hPerMTok: 10,
};

let upstream: BillingUpstream;
let relay: Relay;
beforeAll(async () => {
  upstream = await startBillingUpstream(() => ({ deltas: 1, tokensPerDelta: 10 }));
  relay = await Relay.start({
    provider: "anthropic",
    upstream: upstream.url,
    apiKey: "k",
    retry: { maxRetries: 0, baseDelayMs: 5, maxDelayMs: 20 },
  });
});
afterAll(async () => {
  await relay.close();
  await upstream.close();
});

const session = (pricing: Pricing | null) =>
  relay.openSession({
    tokenBudget: 1_000_000,
    maxTurns: 50,
    pricing,
    trajectory: new TrajectoryRecorder(),
    maxOutputTokens: 100,
  });

/** A call whose system prompt is marked for the 1-hour cache: the upstream bills it all as 1-hour writes. */
const CACHED = {
  model: "m",
  max_tokens: 100,
  system: [{ type: "text", text: "s".repeat(4000), cache_control: { type: "ephemeral", ttl: "1h" } }],
  messages: [{ role: "user", content: "hi" }],
};

describe("1-hour cache writes (M3)", () => {
  it("are charged at their own rate, as the provider reported them", async () => {
    const s = session(OPUS);
    const before = { ...upstream.billed };
    const answer = await hostileCall(relay.socketPath, s.token, { path: "/v1/messages", body: CACHED });
    expect(answer.status).toBe(200);
    await until(() => s.inFlight === 0);
    const written = upstream.billed.cacheWrite1h - before.cacheWrite1h;
    // the body's bytes / 4 as the upstream counts them, all written for an hour; 10 output tokens
    expect(written).toBe(Math.ceil(Buffer.byteLength(JSON.stringify({ ...CACHED })) / 4));
    expect(s.usage()).toMatchObject({
      cacheWriteTokens: written,
      cacheWrite1hTokens: written,
      outputTokens: 10,
    });
    // before: priced at the one cache-write rate, $6.25; billed at $10 per million
    expect(s.usage().costUsd).toBeCloseTo((written * 10 + 10 * 25) / 1e6, 9);
  });

  it("1M tokens written for an hour: $10, not $6.25", () => {
    const meter = new UsageMeter(OPUS);
    meter.add({ input: 0, output: 0, cacheRead: 0, cacheWrite: 1_000_000, cacheWrite1h: 1_000_000 });
    expect(meter.snapshot().costUsd).toBe(10);
  });

  it("are refused, before reaching the provider, where the configuration has no price for them", async () => {
    const { cacheWrite1hPerMTok: _, ...noHour } = OPUS;
    const s = session(noHour);
    const before = upstream.billed.requests;
    const answer = await hostileCall(relay.socketPath, s.token, { path: "/v1/messages", body: CACHED });
    expect(answer.status).toBe(400);
    expect(answer.text).toContain("pricing.cacheWrite1hPerMTok");
    const odd = {
      ...CACHED,
      system: [{ ...CACHED.system[0], cache_control: { type: "ephemeral", ttl: "24h" } }],
    };
    expect((await hostileCall(relay.socketPath, s.token, { path: "/v1/messages", body: odd })).status).toBe(
      400,
    );
    expect(upstream.billed.requests).toBe(before);
    // without prices nothing is costed: the call goes through
    const free = session(null);
    expect(
      (await hostileCall(relay.socketPath, free.token, { path: "/v1/messages", body: CACHED })).status,
    ).toBe(200);
  });
});

describe("long-context tiers", () => {
  // Claude Sonnet 4.5 as published: $3 / $15, above 200K input tokens $6 / $22.50
  const SONNET: Pricing = {
    inputPerMTok: 3,
    outputPerMTok: 15,
    tiers: [{ aboveInputTokens: 200_000, inputPerMTok: 6, outputPerMTok: 22.5 }],
  };

  it("bill a call above the threshold whole at the tier's rates", () => {
    const below = new UsageMeter(SONNET);
    below.add({ input: 150_000, output: 1000, cacheRead: 0, cacheWrite: 0, cacheWrite1h: 0 });
    // 150,000 x $3 + 1,000 x $15 per million = 0.45 + 0.015
    expect(below.snapshot().costUsd).toBe(0.465);
    const above = new UsageMeter(SONNET);
    above.add({ input: 250_000, output: 1000, cacheRead: 0, cacheWrite: 0, cacheWrite1h: 0 });
    // 250,000 x $6 + 1,000 x $22.50 per million = 1.5 + 0.0225
    expect(above.snapshot().costUsd).toBe(1.5225);
  });

  it("are required with Anthropic's 1M-context beta, and go by ascending threshold", () => {
    const base = { harness: "claude-code", provider: "anthropic", model: "claude-sonnet-4-5" };
    const beta = AgentConfig.safeParse({
      ...base,
      anthropicBetas: ["context-1m-2025-08-07"],
      pricing: { inputPerMTok: 3, outputPerMTok: 15 },
    });
    expect(beta.success).toBe(false);
    expect(beta.error?.issues[0]?.path).toEqual(["pricing", "tiers"]);
    expect(
      AgentConfig.safeParse({ ...base, anthropicBetas: ["context-1m-2025-08-07"], pricing: SONNET }).success,
    ).toBe(true);
    const order = {
      ...SONNET,
      tiers: [SONNET.tiers![0]!, { aboveInputTokens: 100_000, inputPerMTok: 4, outputPerMTok: 16 }],
    };
    expect(AgentConfig.safeParse({ ...base, pricing: order }).error?.issues[0]?.path).toEqual([
      "pricing",
      "tiers",
      1,
      "aboveInputTokens",
    ]);
  });
});

describe("the worst case --max-cost reserves", () => {
  const frontier = { tokenBudget: 3_000_000, maxTurns: 50, maxOutputTokens: 32_000, pricing: OPUS };

  it("bounds every token at its dearest rate: 1-hour writes for input, and no turn bound behind the relay (M3)", () => {
    // red team: $48.75 reserved (1.6M output at $25 + 1.4M at the $6.25 write rate) against $54.00
    // with 1-hour writes ($10). And an installed harness's calls without tools are no turns: all
    // 3,000,000 tokens can be output, 3M x $25 = $75
    expect(worstCaseUsd({ ...frontier, harness: "claude-code" }, 3_000_000)).toBe(75);
    // the built-in loop: every call a turn, output <= 50 x 32,000 = 1.6M: 1.6M x $25 + 1.4M x $10 = 40 + 14
    expect(worstCaseUsd({ ...frontier, harness: "builtin" }, 3_000_000)).toBe(54);
  });

  it("takes a tier's rates: Sonnet above 200K, all of 1M tokens output at $22.50", () => {
    const sonnet: Pricing = {
      inputPerMTok: 3,
      outputPerMTok: 15,
      tiers: [{ aboveInputTokens: 200_000, inputPerMTok: 6, outputPerMTok: 22.5 }],
    };
    expect(
      worstCaseUsd(
        { tokenBudget: 1_000_000, maxTurns: 10, maxOutputTokens: 1000, pricing: sonnet },
        1_000_000,
      ),
    ).toBe(22.5);
  });
});
