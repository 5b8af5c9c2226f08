// The model relay on the host: real SDK clients -> forwarder (TCP) -> relay (unix socket) -> loopback
// model server. Key injection, session tokens, token counting in every wire format, retries, limits.
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentConfigInput } from "../src/agents/config.ts";
import { Relay } from "../src/agents/relay/server.ts";
import type { RelaySession } from "../src/agents/relay/session.ts";
import { TrajectoryRecorder } from "../src/agents/trajectory.ts";
import { startForwarder } from "./support/forwarder.ts";
import { type ModelServer, type Script, startModelServer } from "./support/model-server.ts";

const UPSTREAM_KEY = "sk-upstream-secret";
let server: ModelServer | undefined;
let relay: Relay | undefined;
afterEach(async () => {
  await relay?.close();
  await server?.close();
  relay = server = undefined;
});

interface Setup {
  session: RelaySession;
  trajectory: TrajectoryRecorder;
  base: string;
}

async function setup(
  script: Script,
  provider: NonNullable<AgentConfigInput["provider"]>,
  limits: { tokenBudget?: number; maxTurns?: number; outputTokenBudget?: number } = {},
): Promise<Setup> {
  server = await startModelServer(script, { requireKey: UPSTREAM_KEY });
  relay = await Relay.start({
    provider,
    upstream: provider === "anthropic" ? server.anthropicUrl : server.openaiUrl,
    apiKey: UPSTREAM_KEY,
    retry: { maxRetries: 3, baseDelayMs: 5, maxDelayMs: 20 },
  });
  const trajectory = new TrajectoryRecorder();
  const session = relay.openSession({
    tokenBudget: limits.tokenBudget ?? 1_000_000,
    maxTurns: limits.maxTurns ?? 50,
    ...(limits.outputTokenBudget === undefined ? {} : { outputTokenBudget: limits.outputTokenBudget }),
    pricing: { inputPerMTok: 1, outputPerMTok: 2 },
    trajectory,
  });
  return { session, trajectory, base: await startForwarder(relay.socketPath) };
}

const tool = {
  name: "bash",
  description: "run",
  input_schema: { type: "object" as const, properties: { command: { type: "string" } } },
};

describe("relay: Anthropic Messages", () => {
  it("forwards a streamed call with the real key, counts its tokens and records the turn", async () => {
    const { session, trajectory, base } = await setup(
      [
        {
          text: "hi",
          toolCalls: [{ name: "bash", input: { command: "ls" } }],
          usage: { input: 100, output: 20, cacheRead: 300 },
        },
      ],
      "anthropic",
    );
    const client = new Anthropic({ apiKey: session.token, baseURL: base, maxRetries: 0 });
    const message = await client.messages
      .stream({
        model: "claude-x",
        max_tokens: 100,
        tools: [tool],
        messages: [{ role: "user", content: "go" }],
      })
      .finalMessage();
    expect(message.content[1]).toMatchObject({ type: "tool_use", name: "bash" });
    const seen = server!.requests[0]!;
    expect(seen.headers["x-api-key"]).toBe(UPSTREAM_KEY);
    expect(JSON.stringify(seen.headers)).not.toContain(session.token);
    expect(session.usage()).toMatchObject({
      inputTokens: 100,
      outputTokens: 20,
      cacheReadTokens: 300,
      modelCalls: 1,
    });
    expect(session.usage().costUsd).toBeCloseTo((100 * 1 + 20 * 2 + 300 * 1) / 1e6, 9);
    expect(session.turns).toBe(1);
    const events = trajectory.events.map((e) => [e.type, e.name ?? e.kind ?? null]);
    expect(events).toEqual([
      ["note", "harness-context"],
      ["model", null],
      ["tool-call", "bash"],
    ]);
    expect(trajectory.events[0]!.text).toBe("go");
    expect(trajectory.events[2]!.input).toEqual({ command: "ls" });
  });

  it("records the tool results and the new user-turn text the harness sends back, once each", async () => {
    const { session, trajectory, base } = await setup([{ text: "ok" }], "anthropic");
    const client = new Anthropic({ apiKey: session.token, baseURL: base, maxRetries: 0 });
    const messages: Anthropic.MessageParam[] = [
      { role: "user", content: "go" },
      {
        role: "assistant",
        content: [{ type: "tool_use", id: "toolu_9", name: "bash", input: { command: "cat x" } }],
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_9", content: "contents of x" }] },
    ];
    await client.messages.create({ model: "m", max_tokens: 10, tools: [tool], messages });
    messages.push({ role: "assistant", content: "noted" }, { role: "user", content: "skill body: RATE=12" });
    await client.messages.create({ model: "m", max_tokens: 10, tools: [tool], messages });
    await client.messages.create({
      model: "m",
      max_tokens: 10,
      messages: [{ role: "user", content: "side" }],
    });
    const results = trajectory.events.filter((e) => e.type === "tool-result");
    expect(results).toEqual([
      expect.objectContaining({ id: "toolu_9", output: "contents of x", isError: false }),
    ]);
    const context = trajectory.events.filter((e) => e.kind === "harness-context").map((e) => e.text);
    expect(context).toEqual(["go", "skill body: RATE=12"]);
  });

  it("refuses unknown tokens and paths that are not model endpoints", async () => {
    const { session, base } = await setup([{ text: "never" }], "anthropic");
    const bad = new Anthropic({ apiKey: "sk-guess", baseURL: base, maxRetries: 0 });
    await expect(
      bad.messages.create({ model: "m", max_tokens: 5, messages: [{ role: "user", content: "x" }] }),
    ).rejects.toMatchObject({
      status: 401,
    });
    const other = await fetch(`${base}/v1/files`, { headers: { "x-api-key": session.token } });
    expect(other.status).toBe(404);
    expect(server!.requests).toHaveLength(0);
  });

  it("refuses calls that offer the provider's hosted web tools (the sandbox has no web access)", async () => {
    const { session, trajectory, base } = await setup([{ text: "never" }], "anthropic");
    const response = await fetch(`${base}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": session.token, "content-type": "application/json" },
      body: JSON.stringify({
        model: "m",
        max_tokens: 5,
        messages: [{ role: "user", content: "x" }],
        tools: [{ type: "web_search_20250305", name: "web_search" }],
      }),
    });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('tools[0]: hosted tool type \\"web_search_20250305\\" refused');
    expect(server!.requests).toHaveLength(0);
    expect(trajectory.events).toEqual([
      expect.objectContaining({
        kind: "relay-refused",
        egress: 'tools[0]: hosted tool type "web_search_20250305"',
      }),
    ]);
  });

  it("retries a 429 storm upstream so the harness sees one success", async () => {
    const { session, trajectory, base } = await setup(
      [
        { status: 429 },
        { status: 429 },
        { status: 529 },
        { text: "finally", usage: { input: 7, output: 3 } },
      ],
      "anthropic",
    );
    const client = new Anthropic({ apiKey: session.token, baseURL: base, maxRetries: 0 });
    const m = await client.messages.create({
      model: "m",
      max_tokens: 5,
      messages: [{ role: "user", content: "x" }],
    });
    expect(m.content[0]).toMatchObject({ text: "finally" });
    expect(trajectory.events.filter((e) => e.kind === "retry").map((e) => e.status)).toEqual([429, 429, 529]);
    expect(session.infraFailure).toBeNull();
    expect(session.usage().modelCalls).toBe(1);
  });

  it("passes a persistent 500 on after its retries and marks the session's infra failure", async () => {
    const { session, base } = await setup([{ status: 500, message: "overloaded" }], "anthropic");
    const client = new Anthropic({ apiKey: session.token, baseURL: base, maxRetries: 0 });
    await expect(
      client.messages.create({ model: "m", max_tokens: 5, messages: [{ role: "user", content: "x" }] }),
    ).rejects.toMatchObject({
      status: 500,
    });
    expect(server!.requests).toHaveLength(4);
    expect(session.infraFailure).toMatchObject({ owner: "provider", kind: "provider-outage" });
  });

  it("refuses model calls once the token budget is spent", async () => {
    const { session, trajectory, base } = await setup(
      [{ text: "a", usage: { input: 600, output: 500 } }],
      "anthropic",
      {
        tokenBudget: 1000,
      },
    );
    const client = new Anthropic({ apiKey: session.token, baseURL: base, maxRetries: 0 });
    const call = () =>
      client.messages.create({ model: "m", max_tokens: 5, messages: [{ role: "user", content: "x" }] });
    await call();
    await expect(call()).rejects.toMatchObject({ status: 400 });
    expect(session.limitHit).toBe("token-budget");
    expect(server!.requests).toHaveLength(1);
    expect(trajectory.events.at(-1)).toMatchObject({ kind: "relay-limit", limit: "token-budget" });
  });

  it("caps each call's max_tokens at what is left of the output-token budget, input not counted, then refuses", async () => {
    const { session, base } = await setup([{ text: "a", usage: { input: 1000, output: 100 } }], "anthropic", {
      outputTokenBudget: 250,
    });
    const client = new Anthropic({ apiKey: session.token, baseURL: base, maxRetries: 0 });
    const call = () =>
      client.messages.create({ model: "m", max_tokens: 8192, messages: [{ role: "user", content: "x" }] });
    await call();
    await call();
    await call();
    // output 100, 200, then 300 >= 250: the fourth call is refused; 3,300 tokens in all were spent,
    // far under the all-token budget of 1,000,000
    await expect(call()).rejects.toMatchObject({ status: 400 });
    expect(session.limitHit).toBe("token-budget");
    // max_tokens forwarded = min(8192, 250 - output spent): 250, 150, 50
    expect(server!.requests.map((r) => r.body.max_tokens)).toEqual([250, 150, 50]);
  });

  it("refuses tool-offering calls past the turn limit", async () => {
    const { session, base } = await setup([{ text: "a" }], "anthropic", { maxTurns: 2 });
    const client = new Anthropic({ apiKey: session.token, baseURL: base, maxRetries: 0 });
    const call = () =>
      client.messages.create({
        model: "m",
        max_tokens: 5,
        tools: [tool],
        messages: [{ role: "user", content: "x" }],
      });
    await call();
    await call();
    await expect(call()).rejects.toMatchObject({ status: 400 });
    expect(session.limitHit).toBe("max-turns");
  });
});

describe("relay: OpenAI", () => {
  it("asks for usage in streamed chat completions and counts it, with Bearer key injection", async () => {
    const { session, trajectory, base } = await setup(
      [
        {
          toolCalls: [{ name: "bash", input: { command: "pwd" } }],
          usage: { input: 50, output: 5, cacheRead: 10 },
        },
      ],
      "openai-compatible",
    );
    const client = new OpenAI({ apiKey: session.token, baseURL: `${base}/v1`, maxRetries: 0 });
    const stream = await client.chat.completions.create({
      model: "qwen",
      stream: true,
      messages: [{ role: "user", content: "go" }],
      tools: [{ type: "function", function: { name: "bash", parameters: { type: "object" } } }],
    });
    for await (const _chunk of stream) {
      // drain
    }
    const seen = server!.requests[0]!;
    expect(seen.headers.authorization).toBe(`Bearer ${UPSTREAM_KEY}`);
    expect(seen.body.stream_options).toEqual({ include_usage: true });
    expect(session.usage()).toMatchObject({ inputTokens: 50, outputTokens: 5, cacheReadTokens: 10 });
    expect(trajectory.events.find((e) => e.type === "tool-call")).toMatchObject({
      name: "bash",
      input: { command: "pwd" },
    });
  });

  it("counts Responses API calls, streamed and not", async () => {
    const { session, base } = await setup([{ text: "r", usage: { input: 30, output: 4 } }], "openai");
    const client = new OpenAI({ apiKey: session.token, baseURL: `${base}/v1`, maxRetries: 0 });
    const plain = await client.responses.create({ model: "gpt", input: "hello" });
    expect(plain.output_text).toBe("r");
    const stream = await client.responses.create({ model: "gpt", input: "hello", stream: true });
    for await (const _event of stream) {
      // drain
    }
    expect(session.usage()).toMatchObject({ inputTokens: 60, outputTokens: 8, modelCalls: 2 });
  });
});
