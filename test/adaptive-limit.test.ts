// Adaptive concurrency per provider (issue 44 item 6): an overloaded answer halves the level once
// per burst (never below 1), a window of successes grows it back one step up to the level below the
// last overload and past it only after PROBE_WINDOWS windows, retry-after holds new calls, an
// aborted wait takes no slot, an abandoned call frees its slot without counting as a success,
// withRetry holds a slot per attempt, and each session (the limits an agent is prepared with) starts
// from its own level.
import { afterEach, describe, expect, it, vi } from "vitest";
import { AdaptiveLimit, AdaptiveLimits, PROBE_WINDOWS } from "../src/agents/adaptive-limit.ts";
import { BuiltinAgent } from "../src/agents/builtin.ts";
import { withRetry } from "../src/agents/retry.ts";
import type { AgentPrepareContext } from "../src/agents/types.ts";
import { agentConfig, runContext } from "./support/agent-context.ts";
import { DirSandbox } from "./support/dir-sandbox.ts";
import { type ModelServer, startModelServer } from "./support/model-server.ts";

const OK = { overloaded: false } as const;
const OVERLOADED = { overloaded: true } as const;
const ABANDONED = { overloaded: false, abandoned: true } as const;

async function succeed(limit: AdaptiveLimit, times: number): Promise<void> {
  for (let i = 0; i < times; i++) (await limit.acquire())(OK);
}

let server: ModelServer | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await server?.close();
  server = undefined;
});

describe("AdaptiveLimit", () => {
  it("halves once per burst, grows a step per window, and probes past the last good level slowly", async () => {
    const levels: number[] = [];
    const limit = new AdaptiveLimit("p", { onLevel: (level) => levels.push(level) });
    // Unbounded until the first overload: 8 calls at once.
    const first = await Promise.all(Array.from({ length: 8 }, () => limit.acquire()));
    expect(limit.level).toBe(Number.POSITIVE_INFINITY);
    // 8 in flight at the first 429: 8 / 2 = 4 (last good level 7); the second 429 is the same burst.
    first[0]!(OVERLOADED);
    first[1]!(OVERLOADED);
    expect(limit.level).toBe(4);
    // Six successes at level 4: the 4th completes a window (-> 5), two more count toward the next.
    for (const release of first.slice(2)) release(OK);
    expect(levels).toEqual([4, 5]);
    // Five at once, one overloaded: 5 / 2 = 2 (floor), last good level 4.
    const second = await Promise.all(Array.from({ length: 5 }, () => limit.acquire()));
    second[0]!(OVERLOADED);
    for (const release of second.slice(1)) release(OK);
    // After the overload at 5 -> 2, its four successes: window 2 -> 3, then 2 of the 3 needed.
    expect(levels).toEqual([4, 5, 2, 3]);
    await succeed(limit, 1); // 3 of 3 -> 4, the last good level
    expect(limit.level).toBe(4);
    // Past the last good level only after PROBE_WINDOWS windows of 4: 64 x 4 = 256 successes.
    await succeed(limit, 4 * PROBE_WINDOWS - 1);
    expect(limit.level).toBe(4);
    await succeed(limit, 1);
    expect(limit.level).toBe(5);
    expect(levels).toEqual([4, 5, 2, 3, 4, 5]);
  });

  it("never goes below 1 and never grows past the most calls ever in flight", async () => {
    const limit = new AdaptiveLimit("p");
    const release = await limit.acquire();
    release(OVERLOADED); // 1 in flight: 1 / 2 floors to 0, kept at 1
    expect(limit.level).toBe(1);
    const again = await limit.acquire();
    again(OVERLOADED);
    expect(limit.level).toBe(1);
    // The peak was 1 call: successes never raise the level past it.
    await succeed(limit, 10 * PROBE_WINDOWS);
    expect(limit.level).toBe(1);
  });

  it("an abandoned call frees its slot and does not count towards growth", async () => {
    const limit = new AdaptiveLimit("p");
    const held = await Promise.all([1, 2, 3, 4].map(() => limit.acquire()));
    held[0]!(OVERLOADED); // 4 in flight at the overload: level 4 / 2 = 2, the last good level 4 - 1 = 3
    held[1]!(ABANDONED);
    held[2]!(ABANDONED); // two successes would be a window at level 2: not these
    expect(limit.level).toBe(2);
    expect(limit.active).toBe(1);
    held[3]!(OK);
    await succeed(limit, 1); // two successes: one window at level 2 -> 3
    expect(limit.level).toBe(3);
  });

  it("holds new calls until the retry-after of an overloaded answer", async () => {
    vi.useFakeTimers();
    const limit = new AdaptiveLimit("p");
    const calls = await Promise.all([limit.acquire(), limit.acquire()]);
    calls[0]!({ overloaded: true, retryAfterMs: 1000 }); // level 1; one call still in flight
    calls[1]!(OK);
    let started = false;
    const next = limit.acquire().then((release) => {
      started = true;
      return release;
    });
    await vi.advanceTimersByTimeAsync(999);
    expect(started).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(started).toBe(true);
    (await next)(OK);
  });

  it("an aborted wait rejects with the signal's reason and takes no slot", async () => {
    const limit = new AdaptiveLimit("p");
    const held = await Promise.all([limit.acquire(), limit.acquire()]);
    held[0]!(OVERLOADED); // 2 in flight: level 1, one still held
    const controller = new AbortController();
    const waiting = limit.acquire(controller.signal);
    controller.abort(new Error("cancelled"));
    await expect(waiting).rejects.toThrow("cancelled");
    held[1]!(OK);
    expect(limit.active).toBe(0);
    (await limit.acquire())(OK);
  });
});

describe("withRetry with an adaptive limit", () => {
  it("halves on 429 and runs the retries under the new level", async () => {
    const limit = new AdaptiveLimit("p");
    const running = [0, 0];
    const most = [0, 0];
    const call = async (attempt: number) => {
      const i = attempt === 1 ? 0 : 1;
      running[i]! += 1;
      most[i] = Math.max(most[i]!, running[i]!);
      await new Promise((resolve) => setTimeout(resolve, 5));
      running[i]! -= 1;
      if (attempt === 1) throw Object.assign(new Error("429"), { status: 429 });
      return attempt;
    };
    // Four calls at once, each answered 429 first: 4 in flight -> level 2 (the other 429s: same burst).
    const results = await Promise.all(
      Array.from({ length: 4 }, () =>
        withRetry(call, { maxRetries: 3, baseDelayMs: 0, maxDelayMs: 0 }, { limit, random: () => 0 }),
      ),
    );
    expect(results).toEqual([2, 2, 2, 2]);
    // First attempts 4 at once; the retries 2 at once (level 2) until two successes complete a window:
    // level 3, the last good level (4 - 1), where the last two retries run; growth past it needs
    // 3 x PROBE_WINDOWS more successes.
    expect(most).toEqual([4, 2]);
    expect(limit.level).toBe(3);
  });
});

describe("the built-in loop's provider limit", () => {
  it("drops on a real SDK's 429 in its session; a later session starts from its own level", async () => {
    server = await startModelServer(
      [
        { status: 429, headers: { "retry-after-ms": "30" } },
        { toolCalls: [{ name: "finish", input: {} }] },
        { toolCalls: [{ name: "finish", input: {} }] },
      ],
      { requireKey: "sk-limit" },
    );
    const config = agentConfig("limited", {
      harness: "builtin",
      provider: "anthropic",
      model: "claude-test",
      baseUrl: server.anthropicUrl,
      apiKeyEnv: "KGATE_TEST_KEY",
      retry: { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 5 },
      pricing: { inputPerMTok: 3, outputPerMTok: 15 },
    });
    const agent = new BuiltinAgent(config, { env: { KGATE_TEST_KEY: "sk-limit" } });
    const runIn = async (limits: AdaptiveLimits) => {
      await agent.prepare({ limits } as AgentPrepareContext);
      return agent.run(runContext(new DirSandbox()));
    };
    const changes: Array<[number, string]> = [];
    const first = new AdaptiveLimits((level, provider) => changes.push([level, provider]));
    expect((await runIn(first)).stopReason).toBe("finish");
    // One call in flight at the 429: 1 / 2 floors to 0, kept at 1; the provider is named by its endpoint.
    const key = `anthropic ${server.anthropicUrl}`;
    expect(changes).toEqual([[1, key]]);
    expect(first.of({ provider: "anthropic", baseUrl: server.anthropicUrl }).level).toBe(1);
    // A second session (another run in the same process) is not held to the first one's level.
    const second = new AdaptiveLimits((level, provider) => changes.push([level, provider]));
    expect((await runIn(second)).stopReason).toBe("finish");
    expect(second.of({ provider: "anthropic", baseUrl: server.anthropicUrl }).level).toBe(
      Number.POSITIVE_INFINITY,
    );
    expect(changes).toEqual([[1, key]]);
    expect(server.requests).toHaveLength(3);
  });
});
