// Prompt caching in the built-in loop, asserted at the wire: Anthropic requests carry cache_control
// breakpoints on the system prompt, the tools and the growing conversation (at most 4); Chat
// Completions requests keep their prefix byte-stable across turns. The loopback server bills by
// prefix (test/support/model-cache.ts), so the recorded cache reads and writes follow the requests.
import { afterEach, describe, expect, it } from "vitest";
import { BuiltinAgent } from "../src/agents/builtin.ts";
import { AnthropicModel } from "../src/agents/providers/anthropic.ts";

import { agentConfig, conditionFiles, runContext, scaffoldedTask } from "./support/agent-context.ts";
import { longSession } from "./support/cached-session.ts";
import { DirSandbox } from "./support/dir-sandbox.ts";
import { type ModelServer, type SeenRequest, startModelServer } from "./support/model-server.ts";

/** A model event's usage, as the loop records it. */
interface TurnUsage {
  usage: { input: number; output: number; cacheRead: number; cacheWrite: number };
}

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const TURNS = 5;

/** Every object in a request body that carries cache_control, as a path-free list. */
function breakpoints(value: unknown): unknown[] {
  if (Array.isArray(value)) return value.flatMap(breakpoints);
  if (value === null || typeof value !== "object") return [];
  const own = "cache_control" in value ? [value] : [];
  return [...own, ...Object.values(value).flatMap(breakpoints)];
}

/** The request without its breakpoints: what must stay the same from turn to turn. */
function withoutBreakpoints(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (k, v) => (k === "cache_control" ? undefined : v)));
}

async function runSession(provider: "anthropic" | "openai-compatible", promptCaching = true) {
  server = await startModelServer(longSession(TURNS), {
    requireKey: "sk-cache",
    promptCache: { minTokens: 0 },
  });
  const baseUrl = provider === "anthropic" ? server.anthropicUrl : server.openaiUrl;
  const config = agentConfig("cached", {
    harness: "builtin",
    provider,
    model: "m",
    baseUrl,
    apiKeyEnv: "KGATE_TEST_KEY",
    pricing: { inputPerMTok: 5, outputPerMTok: 25, cacheReadPerMTok: 0.5, cacheWritePerMTok: 6.25 },
  });
  const model =
    provider === "anthropic"
      ? new AnthropicModel({ model: "m", baseUrl, apiKey: "sk-cache", promptCaching })
      : undefined;
  const agent = new BuiltinAgent(config, {
    env: { KGATE_TEST_KEY: "sk-cache" },
    ...(model ? { model } : {}),
  });
  const task = scaffoldedTask();
  const ctx = runContext(new DirSandbox(conditionFiles(task, "+A")), { task, condition: "+A" });
  const result = await agent.run(ctx);
  const turns = ctx.trajectory.events.filter((e) => e.type === "model") as unknown as TurnUsage[];
  return { result, turns, requests: server.requests as SeenRequest[] };
}

describe("prompt caching, Anthropic Messages", () => {
  it("marks the system prompt, the last tool and the last two user turns, never more than 4", async () => {
    const { result, requests } = await runSession("anthropic");
    expect(result.stopReason).toBe("finish");
    expect(requests).toHaveLength(TURNS);
    requests.forEach((request, i) => {
      const body = request.body as {
        system: unknown[];
        tools: unknown[];
        messages: Array<{ role: string; content: unknown[] }>;
      };
      expect(body.system).toEqual([
        expect.objectContaining({ type: "text", cache_control: { type: "ephemeral" } }),
      ]);
      expect(breakpoints(body.tools)).toEqual([body.tools.at(-1)]);
      const lastBlock = (m: { content: unknown[] }) => m.content.at(-1);
      const users = body.messages.filter((m) => m.role === "user");
      // turn 1 has one user message (the instruction): system + tool + 1 = 3; later turns 2 more = 4
      const expected = i === 0 ? 3 : 4;
      expect(breakpoints(body)).toHaveLength(expected);
      expect(breakpoints(body.messages)).toEqual(users.slice(-2).map(lastBlock));
      expect(body.messages.at(-1)!.role).toBe("user");
    });
  });

  it("keeps the prefix stable, so each turn reads what the previous turn wrote", async () => {
    const { turns, requests } = await runSession("anthropic");
    for (let i = 1; i < requests.length; i++) {
      const before = withoutBreakpoints(requests[i - 1]!.body) as {
        messages: unknown[];
        tools: unknown;
        system: unknown;
      };
      const now = withoutBreakpoints(requests[i]!.body) as typeof before;
      expect(now.tools).toEqual(before.tools);
      expect(now.system).toEqual(before.system);
      expect(now.messages.slice(0, before.messages.length)).toEqual(before.messages);
    }
    // By the billing rule: the last breakpoint is on the request's last block, so nothing is uncached
    // input, turn 1 writes all of its prompt, and turn k reads exactly turn k-1's whole prompt
    // (read + written) and writes only what is new.
    expect(turns[0]!.usage).toMatchObject({ input: 0, cacheRead: 0 });
    expect(turns[0]!.usage.cacheWrite).toBeGreaterThan(0);
    for (let k = 1; k < turns.length; k++) {
      const previous = turns[k - 1]!.usage;
      expect(turns[k]!.usage.input).toBe(0);
      expect(turns[k]!.usage.cacheRead).toBe(previous.cacheRead + previous.cacheWrite);
      expect(turns[k]!.usage.cacheWrite).toBeGreaterThan(0);
    }
  });

  it("with caching off sends no breakpoint and bills every turn as fresh input", async () => {
    const { result, turns, requests } = await runSession("anthropic", false);
    for (const r of requests) expect(breakpoints(r.body)).toEqual([]);
    expect(turns.every((t) => t.usage.cacheRead === 0 && t.usage.cacheWrite === 0)).toBe(true);
    expect(result.usage.inputTokens).toBe(turns.reduce((sum, t) => sum + t.usage.input, 0));
  });
});

describe("prompt caching, OpenAI-compatible Chat Completions", () => {
  it("keeps every request's messages and tools a byte-identical prefix of the next", async () => {
    const { result, turns, requests } = await runSession("openai-compatible");
    expect(result.stopReason).toBe("finish");
    for (let i = 1; i < requests.length; i++) {
      const before = requests[i - 1]!.body as { messages: unknown[]; tools: unknown };
      const now = requests[i]!.body as typeof before;
      expect(JSON.stringify(now.tools)).toBe(JSON.stringify(before.tools));
      const prefix = JSON.stringify(before.messages).slice(0, -1);
      expect(JSON.stringify(now.messages).startsWith(prefix)).toBe(true);
    }
    // automatic prefix caching: turn k reads turn k-1's whole prompt (its uncached input + its reads);
    // kgate moves the cached tokens out of prompt_tokens into cacheRead
    expect(turns[0]!.usage.cacheRead).toBe(0);
    for (let k = 1; k < turns.length; k++) {
      const previous = turns[k - 1]!.usage;
      expect(turns[k]!.usage.cacheRead).toBe(previous.input + previous.cacheRead);
    }
    expect(result.usage.cacheReadTokens).toBe(turns.reduce((sum, t) => sum + t.usage.cacheRead, 0));
  });
});
