// The relay's guard against the red team's round-2 probes (issue 29, items 1, 2 and 6): nested URL,
// file and container content wherever it sits, JSON bodies that are not objects, any method, query,
// beta or organisation header, previous_response_id and stored state; n choices and a leftover
// max_tokens past the budget; a stalled upstream; one trial past its share of the connections.
// Raw requests to the relay's socket (what a hostile harness can send), a capturing upstream behind.
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ProviderName } from "../src/agents/config.ts";
import { egressProblem, MAX_DEPTH } from "../src/agents/relay/guard.ts";
import { Relay, type RelayOptions } from "../src/agents/relay/server.ts";
import type { RelaySession } from "../src/agents/relay/session.ts";
import { TrajectoryRecorder } from "../src/agents/trajectory.ts";
import { type CaptureUpstream, sendRaw, startCaptureUpstream } from "./support/capture-upstream.ts";

interface Probe {
  id: string;
  what: string;
  provider: ProviderName;
  method: string;
  path: string;
  body?: unknown;
  raw?: string;
  headers?: Record<string, string>;
  expect: "refused" | "forwarded";
  status?: number;
}
const FIXTURE = path.join(import.meta.dirname, "fixtures", "redteam-round2", "relay-probes.json");
const PROBES = (JSON.parse(readFileSync(FIXTURE, "utf8")) as { probes: Probe[] }).probes;

let upstream: CaptureUpstream;
const relays: Relay[] = [];
beforeAll(async () => {
  upstream = await startCaptureUpstream();
});
afterEach(() => {
  upstream.stall = null;
});
afterAll(async () => {
  for (const r of relays) await r.close();
  await upstream.close();
});

async function relayFor(
  provider: ProviderName,
  session: { tokenBudget?: number; maxOutputTokens?: number; maxInFlight?: number } = {},
  options: Partial<RelayOptions> = {},
) {
  const relay = await Relay.start({
    provider,
    upstream: provider === "anthropic" ? upstream.url : `${upstream.url}/v1`,
    apiKey: "sk-real",
    retry: { maxRetries: 0, baseDelayMs: 5, maxDelayMs: 20 },
    ...options,
  });
  relays.push(relay);
  const trajectory = new TrajectoryRecorder();
  const s: RelaySession = relay.openSession({
    tokenBudget: session.tokenBudget ?? 1_000_000,
    maxTurns: 50,
    pricing: null,
    trajectory,
    model: "configured-model",
    maxOutputTokens: session.maxOutputTokens ?? 1000,
    maxInFlight: session.maxInFlight,
  });
  const send = (call: {
    method?: string;
    path: string;
    body?: unknown;
    raw?: string;
    headers?: Record<string, string>;
  }) =>
    sendRaw(relay.socketPath, s.token, {
      method: call.method ?? "POST",
      path: call.path,
      body: call.raw ?? (call.body === undefined ? null : JSON.stringify(call.body)),
      headers: call.headers,
    });
  return { relay, session: s, trajectory, send };
}

/** What the upstream received from one call of `send`. */
async function forwardedBy<T>(send: () => Promise<T>) {
  const before = upstream.seen.length;
  const result = await send();
  return { result, forwarded: upstream.seen.slice(before) };
}

describe("the red team's round-2 probes (test/fixtures/redteam-round2/relay-probes.json)", () => {
  for (const probe of PROBES) {
    it(`${probe.id}: ${probe.what}: ${probe.expect}`, async () => {
      const { send } = await relayFor(probe.provider);
      const { result, forwarded } = await forwardedBy(() => send(probe));
      if (probe.expect === "refused") {
        expect(result.status, result.body).toBe(probe.status);
        expect(result.body).toContain("kgate relay:");
        expect(forwarded).toEqual([]);
        return;
      }
      expect(result.status, result.body).toBe(200);
      expect(forwarded).toHaveLength(1);
      const sent = forwarded[0]!;
      expect(sent.method).toBe(probe.method);
      // nothing of the harness's identity or betas goes on; the real key does
      expect(sent.headers["anthropic-beta"]).toBeUndefined();
      expect(sent.headers["openai-organization"]).toBeUndefined();
      expect(sent.headers["openai-project"]).toBeUndefined();
      expect(JSON.stringify(sent.headers)).toContain("sk-real");
      if (probe.method === "POST") {
        const body = JSON.parse(sent.body) as Record<string, unknown>;
        expect(body.model).toBe("configured-model");
        if (probe.path.startsWith("/v1/responses")) expect(body.store).toBe(false);
      } else expect(sent.body).toBe("");
    });
  }

  it("names the JSON path of nested URL content (A2: inside a tool_result's document)", async () => {
    const a2 = PROBES.find((p) => p.id === "A2")!;
    const { send, trajectory } = await relayFor("anthropic");
    const refused = await send(a2);
    expect(refused.body).toContain(
      'messages[0].content[0].content[0].source.content[0].source: type \\"url\\" refused',
    );
    expect(trajectory.events).toContainEqual(
      expect.objectContaining({
        kind: "relay-refused",
        egress: 'messages[0].content[0].content[0].source.content[0].source: type "url"',
      }),
    );
  });
});

describe("egressProblem: one walk of the whole body, driven by the allowlist", () => {
  const anthropic = (content: unknown, extra: Record<string, unknown> = {}) => ({
    model: "m",
    max_tokens: 5,
    messages: [{ role: "user", content }],
    ...extra,
  });

  it("refuses an unknown type anywhere, naming its path; a URL by its key even under an allowed type", () => {
    expect(
      egressProblem(
        "anthropic",
        anthropic([
          { type: "text", text: "x", citations: [{ type: "web_search_result_location", url: "http://x" }] },
        ]),
      ),
    ).toBe('messages[0].content[0].citations[0]: type "web_search_result_location"');
    expect(
      egressProblem("anthropic", anthropic([{ type: "image", source: { type: "base64", url: "http://x" } }])),
    ).toBe("messages[0].content[0].source.url: a URL that is not a data: URL");
    expect(
      egressProblem("openai-responses", {
        model: "m",
        input: [{ type: "input_file", file_url: "https://x" }],
      }),
    ).toBe("input[0].file_url: a URL that is not a data: URL");
    expect(
      egressProblem("openai-responses", {
        model: "m",
        input: [{ type: "reasoning", id: "rs", container_id: "c" }],
      }),
    ).toBe("input[0].container_id: a reference to stored state");
    expect(
      egressProblem("openai-responses", { model: "m", input: "x", tools: [{ type: "file_search" }] }),
    ).toBe('tools[0]: hosted tool type "file_search"');
    // Codex's namespace holds tools of its own: a hosted one inside is found there too
    expect(
      egressProblem("openai-responses", {
        model: "m",
        input: "x",
        tools: [
          { type: "namespace", name: "n", tools: [{ type: "function", name: "f" }, { type: "web_search" }] },
        ],
      }),
    ).toBe('tools[0].tools[1]: hosted tool type "web_search"');
  });

  it("passes harness traffic: client-side tools, JSON schemas and tool inputs as data, inline content", () => {
    const codex = {
      model: "m",
      input: [
        { type: "message", role: "user", content: [{ type: "input_text", text: "go" }] },
        { type: "custom_tool_call", call_id: "c1", name: "apply_patch", input: "*** Begin Patch" },
        { type: "custom_tool_call_output", call_id: "c1", output: "ok" },
        { type: "local_shell_call", call_id: "c2", action: { type: "exec", command: ["ls"] } },
        {
          type: "function_call_output",
          call_id: "c3",
          output: [{ type: "input_image", image_url: "data:image/png;base64,AA" }],
        },
      ],
      tools: [
        {
          type: "custom",
          name: "apply_patch",
          format: { type: "grammar", syntax: "lark", definition: "start: x" },
        },
        { type: "local_shell" },
        // a schema's `type` values are JSON schema's, and a `url` property is a name in it
        {
          type: "function",
          name: "f",
          parameters: { type: "object", properties: { url: { type: "string" } } },
        },
      ],
      text: { format: { type: "json_schema", name: "o", schema: { type: "array" } } },
    };
    expect(egressProblem("openai-responses", codex)).toBeNull();
    const claude = anthropic(
      [
        {
          type: "tool_result",
          tool_use_id: "t",
          content: [{ type: "image", source: { type: "base64", media_type: "image/png", data: "AA" } }],
        },
        { type: "text", text: "x", cache_control: { type: "ephemeral" } },
      ],
      {
        system: [{ type: "text", text: "s", cache_control: { type: "ephemeral" } }],
        tools: [
          { name: "bash", input_schema: { type: "object", properties: { file_id: { type: "string" } } } },
        ],
        thinking: { type: "enabled", budget_tokens: 1024 },
        context_management: {
          edits: [{ type: "clear_tool_uses_20250919", trigger: { type: "input_tokens", value: 1 } }],
        },
      },
    );
    claude.messages.unshift({
      role: "assistant",
      content: [{ type: "tool_use", id: "t", name: "fetch", input: { url: "http://x", type: "url" } }],
    } as never);
    expect(egressProblem("anthropic", claude)).toBeNull();
  });

  it(`refuses nesting past ${MAX_DEPTH} levels without recursion (100,000 levels: no stack overflow)`, () => {
    let deep: unknown = "x";
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(egressProblem("anthropic", anthropic(deep))).toMatch(/: nested deeper than 100 levels$/);
    // the same depth inside an opaque schema is refused too: the body is re-serialised before forwarding
    expect(
      egressProblem("anthropic", anthropic("x", { tools: [{ name: "t", input_schema: deep }] })),
    ).toMatch(/nested deeper than 100 levels$/);
  });
});

describe("the budget through n and every cap field (items C1, C2)", () => {
  it("n: 50 is forced to 1: one call spends one reservation (the red team spent 50,000 of a 10,000 budget)", async () => {
    const { send, session } = await relayFor("openai-compatible", {
      tokenBudget: 10_000,
      maxOutputTokens: 1000,
    });
    const body = {
      model: "m",
      n: 50,
      max_completion_tokens: 1000,
      messages: [{ role: "user", content: "x" }],
      tools: [{ type: "function", function: { name: "f", parameters: {} } }],
    };
    const { result, forwarded } = await forwardedBy(() => send({ path: "/v1/chat/completions", body }));
    expect(result.status).toBe(200);
    const sent = JSON.parse(forwarded[0]!.body) as Record<string, unknown>;
    expect(sent.n).toBe(1);
    expect(sent.max_completion_tokens).toBe(1000);
    // The upstream bills n x cap output: 1 x 1000, plus 10 input = 1010 of the 10,000 (50 x 1000 before).
    expect(session.usage().outputTokens).toBe(1000);
    expect(session.usage().inputTokens).toBe(10);
  });

  it("a leftover max_tokens beside max_completion_tokens is capped too, at the smaller ask", async () => {
    const { send } = await relayFor("openai-compatible", { maxOutputTokens: 1000 });
    const body = {
      model: "m",
      max_completion_tokens: 5,
      max_tokens: 999_999,
      messages: [{ role: "user", content: "x" }],
    };
    const { forwarded } = await forwardedBy(() => send({ path: "/v1/chat/completions", body }));
    const sent = JSON.parse(forwarded[0]!.body) as Record<string, unknown>;
    // asked min(5, 999999) = 5, under the 1000 cap: both fields say 5 (before: 999999 went on)
    expect(sent.max_completion_tokens).toBe(5);
    expect(sent.max_tokens).toBe(5);
    const legacy = { model: "m", max_tokens: 999_999, messages: [{ role: "user", content: "x" }] };
    const only = await forwardedBy(() => send({ path: "/v1/chat/completions", body: legacy }));
    const capped = JSON.parse(only.forwarded[0]!.body) as Record<string, unknown>;
    expect(capped.max_tokens).toBe(1000);
    expect(capped.max_completion_tokens).toBeUndefined();
  });

  it("best_of, and n on Responses (which has no such field), are refused: no second way to ask for many choices", async () => {
    const chat = await relayFor("openai-compatible");
    const messages = [{ role: "user", content: "x" }];
    const bestOf = await forwardedBy(() =>
      chat.send({ path: "/v1/chat/completions", body: { model: "m", best_of: 5, max_tokens: 10, messages } }),
    );
    expect(bestOf.result.status).toBe(400);
    expect(bestOf.result.body).toContain('request field \\"best_of\\"');
    expect(bestOf.forwarded).toEqual([]);
    const responses = await relayFor("openai");
    const n = await forwardedBy(() =>
      responses.send({ path: "/v1/responses", body: { model: "m", n: 3, input: "x" } }),
    );
    expect(n.result.status).toBe(400);
    expect(n.result.body).toContain('request field \\"n\\"');
    expect(n.forwarded).toEqual([]);
  });
});

describe("headers the configuration allows", () => {
  it("passes on only the configured betas, and the configured organisation and project", async () => {
    const a = await relayFor("anthropic", {}, { anthropicBetas: ["context-management-2025-06-27"] });
    const beta = await forwardedBy(() =>
      a.send({
        path: "/v1/messages",
        body: { model: "m", max_tokens: 5, messages: [{ role: "user", content: "x" }] },
        headers: {
          "anthropic-beta": "files-api-2025-04-14, context-management-2025-06-27,mcp-client-2025-04-04",
        },
      }),
    );
    expect(beta.forwarded[0]!.headers["anthropic-beta"]).toBe("context-management-2025-06-27");
    const o = await relayFor("openai", {}, { openaiOrganization: "org-kgate", openaiProject: "proj-kgate" });
    const org = await forwardedBy(() =>
      o.send({
        path: "/v1/responses",
        body: { model: "m", input: "x" },
        headers: { "openai-organization": "org-other", "openai-project": "proj-other" },
      }),
    );
    expect(org.forwarded[0]!.headers["openai-organization"]).toBe("org-kgate");
    expect(org.forwarded[0]!.headers["openai-project"]).toBe("proj-kgate");
  });
});

describe("an upstream that stalls is cut, as the provider's failure", () => {
  const call = {
    path: "/v1/messages",
    body: { model: "m", max_tokens: 5, stream: true, messages: [{ role: "user", content: "x" }] },
  };

  it("before its headers: 504, and the session's infra failure is the provider's", async () => {
    const { send, session } = await relayFor("anthropic", {}, { upstreamTimeoutMs: 300 });
    upstream.stall = "headers";
    const result = await send(call);
    expect(result.status).toBe(504);
    expect(result.body).toContain("the provider sent nothing for");
    expect(session.infraFailure).toMatchObject({ kind: "provider-outage", owner: "provider" });
    expect(session.inFlight).toBe(0);
    // the request was sent: the provider may have billed it, so it is charged at its reservation,
    // ceil(85 bytes / 2) = 43 input and the 5 output tokens granted (issue 40 item 1)
    expect(session.usage()).toMatchObject({ inputTokens: 43, outputTokens: 5, callsChargedAtReservation: 1 });
  });

  it("in the middle of its body: the stream is cut, its start counted, the failure the provider's", async () => {
    const { relay, session } = await relayFor("anthropic", {}, { upstreamTimeoutMs: 300 });
    upstream.stall = "body";
    // the harness sees its stream end early (a reset), never a hang
    const outcome = await sendRaw(relay.socketPath, session.token, {
      ...call,
      method: "POST",
      body: JSON.stringify(call.body),
    }).then(
      (r) => r.status,
      (err: Error) => err.message,
    );
    expect([200, "aborted", "socket hang up"]).toContain(outcome);
    expect(session.infraFailure).toMatchObject({ kind: "provider-outage" });
    // message_start reported 10 input and 1 output token, but the call's whole usage never came: it
    // is charged at its reservation, the body {"model":"m","max_tokens":5,"stream":true,"messages":
    // [{"role":"user","content":"x"}]} of 85 bytes -> ceil(85 / 2) = 43 input, 5 output (issue 40 item 1)
    expect(session.usage()).toMatchObject({ inputTokens: 43, outputTokens: 5, callsChargedAtReservation: 1 });
    expect(session.reportedUsage().modelCalls).toBe(0);
  });
});

describe("a trial holds at most its share of the relay's upstream connections", () => {
  it("four trials on a relay of 4 connections: one call each at once, the second of a trial gets 429", async () => {
    const { relay, send, trajectory } = await relayFor(
      "anthropic",
      { maxInFlight: 4 },
      { maxConnections: 4 },
    );
    for (let i = 0; i < 3; i++) {
      relay.openSession({
        tokenBudget: 1000,
        maxTurns: 1,
        pricing: null,
        trajectory: new TrajectoryRecorder(),
      });
    }
    upstream.stall = "headers";
    const body = { model: "m", max_tokens: 5, messages: [{ role: "user", content: "x" }] };
    const before = upstream.seen.length;
    const first = send({ path: "/v1/messages", body });
    // floor(4 connections / 4 sessions) = 1 request of this trial at once: the second is refused
    await expect.poll(() => upstream.seen.length).toBe(before + 1);
    const second = await send({ path: "/v1/messages", body });
    expect(second.status).toBe(429);
    expect(second.body).toContain("at most 1 requests of this trial at once");
    expect(trajectory.events).toContainEqual(
      expect.objectContaining({ kind: "relay-limit", limit: "in-flight" }),
    );
    await relay.close();
    await first.catch(() => null);
  });
});
