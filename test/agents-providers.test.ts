// The provider layer through the real SDK clients against the loopback model server: tool calls,
// usage in every wire format, streaming, retries on 429 storms, and classification of failures.

import type { AddressInfo } from "node:net";
import { createServer } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { classifyError, ModelCallError } from "../src/agents/errors.ts";
import { AnthropicModel, type ModelRequest, OpenAIModel } from "../src/agents/providers/index.ts";
import { backoffDelay, type RetryNotice, withRetry } from "../src/agents/retry.ts";
import { FAILURE_KINDS } from "../src/record/index.ts";
import { type ModelServer, type Script, startModelServer } from "./support/model-server.ts";

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const request: ModelRequest = {
  system: "be brief",
  messages: [{ role: "user", text: "list the files" }],
  tools: [
    {
      name: "bash",
      description: "run a command",
      parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] },
    },
  ],
  maxOutputTokens: 64_000,
};

async function models(script: Script) {
  server = await startModelServer(script, { requireKey: "k-test" });
  return {
    anthropic: new AnthropicModel({ model: "claude-x", baseUrl: server.anthropicUrl, apiKey: "k-test" }),
    openai: new OpenAIModel({
      model: "gpt-x",
      baseUrl: server.openaiUrl,
      apiKey: "k-test",
      maxTokensField: "max_completion_tokens",
    }),
  };
}

const fastRetry = { maxRetries: 4, baseDelayMs: 5, maxDelayMs: 20 };

describe("Anthropic provider", () => {
  it("streams a reply with text and a tool call, and normalises usage with cache tokens", async () => {
    const { anthropic } = await models([
      {
        text: "Looking.",
        toolCalls: [{ name: "bash", input: { command: "ls -la" } }],
        usage: { input: 120, output: 30, cacheRead: 400, cacheWrite: 50 },
      },
    ]);
    const reply = await anthropic.complete(request);
    expect(reply.stopReason).toBe("tool-use");
    expect(reply.parts[0]).toEqual({ type: "text", text: "Looking." });
    expect(reply.parts[1]).toMatchObject({ type: "tool-call", name: "bash", input: { command: "ls -la" } });
    expect(reply.usage).toEqual({ input: 120, output: 30, cacheRead: 400, cacheWrite: 50, cacheWrite1h: 0 });
    const seen = server!.requests[0]!;
    expect(seen.stream).toBe(true);
    // the system prompt goes as one text block carrying a cache breakpoint (see agents-caching.test.ts)
    expect(seen.body.system).toEqual([
      { type: "text", text: "be brief", cache_control: { type: "ephemeral" } },
    ]);
    expect(seen.body.max_tokens).toBe(64_000);
  });

  it("sends tool results back as tool_result blocks", async () => {
    const { anthropic } = await models([{ text: "done" }]);
    await anthropic.complete({
      ...request,
      messages: [
        { role: "user", text: "go" },
        {
          role: "assistant",
          parts: [{ type: "tool-call", id: "toolu_1", name: "bash", input: { command: "ls" } }],
        },
        { role: "tool-results", results: [{ id: "toolu_1", name: "bash", output: "a.txt", isError: false }] },
      ],
    });
    const messages = server!.requests[0]!.body.messages as Array<{ content: unknown }>;
    expect(messages[2]!.content).toEqual([
      {
        type: "tool_result",
        tool_use_id: "toolu_1",
        content: "a.txt",
        is_error: false,
        cache_control: { type: "ephemeral" },
      },
    ]);
  });
});

describe("OpenAI provider", () => {
  it("returns function calls and moves cached prompt tokens to cacheRead", async () => {
    const { openai } = await models([
      {
        toolCalls: [{ name: "bash", input: { command: "pwd" } }],
        usage: { input: 80, output: 12, cacheRead: 20 },
      },
    ]);
    const reply = await openai.complete(request);
    expect(reply.stopReason).toBe("tool-use");
    expect(reply.parts[0]).toMatchObject({ type: "tool-call", name: "bash", input: { command: "pwd" } });
    expect(reply.usage).toEqual({ input: 80, output: 12, cacheRead: 20, cacheWrite: 0, cacheWrite1h: 0 });
    const body = server!.requests[0]!.body;
    expect(body.max_completion_tokens).toBe(64_000);
    expect((body.messages as Array<{ role: string }>)[0]!.role).toBe("system");
  });

  it("round-trips the raw argument string and tool results as role=tool messages", async () => {
    const { openai } = await models([{ text: "ok" }]);
    await openai.complete({
      ...request,
      messages: [
        { role: "user", text: "go" },
        {
          role: "assistant",
          parts: [
            { type: "tool-call", id: "call_1", name: "bash", input: {}, rawArguments: '{"command":"ls"}' },
          ],
        },
        { role: "tool-results", results: [{ id: "call_1", name: "bash", output: "x", isError: false }] },
      ],
    });
    const messages = server!.requests[0]!.body.messages as Array<Record<string, unknown>>;
    expect(messages[2]).toMatchObject({
      role: "assistant",
      tool_calls: [{ function: { arguments: '{"command":"ls"}' } }],
    });
    expect(messages[3]).toEqual({ role: "tool", tool_call_id: "call_1", content: "x" });
  });
});

describe("retries and classification", () => {
  it("retries a 429 storm with back-off and then succeeds (Anthropic)", async () => {
    const { anthropic } = await models([
      { status: 429 },
      { status: 429 },
      { status: 429, headers: { "retry-after-ms": "1" } },
      { text: "finally" },
    ]);
    const notices: RetryNotice[] = [];
    const reply = await withRetry(() => anthropic.complete(request), fastRetry, {
      onRetry: (n) => notices.push(n),
    });
    expect(reply.parts).toEqual([{ type: "text", text: "finally" }]);
    expect(notices.map((n) => [n.retry, n.failure.kind])).toEqual([
      [1, "rate-limit"],
      [2, "rate-limit"],
      [3, "rate-limit"],
    ]);
    expect(server!.requests).toHaveLength(4);
  });

  it("turns a persistent 500 into an infra ModelCallError after the bounded retries (OpenAI)", async () => {
    const { openai } = await models([{ status: 500 }]);
    const error = await withRetry(() => openai.complete(request), fastRetry).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelCallError);
    expect((error as ModelCallError).toTrialError()).toMatchObject({
      owner: "provider",
      kind: "provider-outage",
    });
    expect(server!.requests).toHaveLength(1 + fastRetry.maxRetries);
  });

  it("does not retry a bad key and classifies it as infra auth", async () => {
    server = await startModelServer([{ text: "unreachable" }], { requireKey: "right" });
    const model = new AnthropicModel({ model: "m", baseUrl: server.anthropicUrl, apiKey: "wrong" });
    const error = (await withRetry(() => model.complete(request), fastRetry).catch(
      (e) => e,
    )) as ModelCallError;
    expect(error.failure).toMatchObject({ kind: "auth", retryable: false });
    expect(error.toTrialError().owner).toBe("provider");
    expect(server.requests).toHaveLength(0);
  });

  it("classifies a context overflow as the agent's outcome", async () => {
    const { openai } = await models([
      { status: 400, message: "This model's maximum context length is 8192 tokens" },
    ]);
    const error = await openai.complete(request).catch((e: unknown) => e);
    expect(classifyError(error)).toMatchObject({ kind: "context-overflow" });
    expect(FAILURE_KINDS["context-overflow"]).toMatchObject({ owner: "agent", counted: true });
  });

  it("classifies a refused connection as retryable infra, naming the endpoint and the cause", async () => {
    const refusing = createServer();
    await new Promise<void>((done) => refusing.listen(0, "127.0.0.1", done));
    const { port } = refusing.address() as AddressInfo;
    await new Promise<void>((done) => refusing.close(() => done()));
    const model = new OpenAIModel({
      model: "m",
      baseUrl: `http://127.0.0.1:${port}/v1`,
      apiKey: null,
      maxTokensField: "max_tokens",
    });
    const error = await model.complete(request).catch((e: unknown) => e);
    expect(classifyError(error)).toMatchObject({ kind: "provider-unreachable", retryable: true });
    // the message names the endpoint and the cause the SDK keeps two levels deep
    expect((error as Error).message).toBe(
      `Connection error. (ECONNREFUSED) calling http://127.0.0.1:${port}/v1/chat/completions`,
    );
    const anthropic = new AnthropicModel({ model: "m", baseUrl: `http://127.0.0.1:${port}`, apiKey: null });
    const failed = (await anthropic.complete(request).catch((e: unknown) => e)) as Error;
    expect(failed.message).toBe(
      `Connection error. (ECONNREFUSED) calling http://127.0.0.1:${port}/v1/messages`,
    );
    // a port fetch itself refuses to dial: the cause is named all the same
    const blocked = new OpenAIModel({
      model: "m",
      baseUrl: "http://127.0.0.1:9/v1",
      apiKey: null,
      maxTokensField: "max_tokens",
    });
    const bad = (await blocked.complete(request).catch((e: unknown) => e)) as Error;
    expect(bad.message).toBe("Connection error. (bad port) calling http://127.0.0.1:9/v1/chat/completions");
    expect(classifyError(failed)).toMatchObject({ kind: "provider-unreachable" });
  });

  it("backs off exponentially with jitter inside [ceiling/2, ceiling] and honours retry-after", () => {
    const policy = { maxRetries: 5, baseDelayMs: 100, maxDelayMs: 1000 };
    expect(backoffDelay(policy, 1, () => 0)).toBe(50);
    expect(backoffDelay(policy, 1, () => 0.999)).toBe(100);
    expect(backoffDelay(policy, 3, () => 0)).toBe(200);
    expect(backoffDelay(policy, 10, () => 0.999)).toBe(1000);
    expect(backoffDelay(policy, 1, () => 0, 700)).toBe(700);
    expect(backoffDelay(policy, 1, () => 0, 5000)).toBe(1000);
  });
});
