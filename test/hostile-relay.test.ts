// Hostile harnesses at the relay (red-team items 2, 3, 4, 8, 9): huge bodies, concurrent calls past
// the budget, model and max_tokens substitution, fetches on the agent's behalf, connection floods and
// trajectory amplification. Real SDK clients -> the real forwarder -> relay -> loopback scripted server.
import { EventEmitter } from "node:events";
import { request, type Server } from "node:http";
import { connect, type Socket } from "node:net";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentConfigInput } from "../src/agents/config.ts";
import { egressProblem } from "../src/agents/relay/guard.ts";
import { Relay, type RelayOptions } from "../src/agents/relay/server.ts";
import type { RelaySession } from "../src/agents/relay/session.ts";
import { TrajectoryRecorder } from "../src/agents/trajectory.ts";
import { startForwarder } from "./support/forwarder.ts";
import { type ModelServer, type Script, startModelServer } from "./support/model-server.ts";

const KEY = "sk-upstream-secret";
let server: ModelServer | undefined;
let relay: Relay | undefined;
afterEach(async () => {
  await relay?.close();
  await server?.close();
  relay = server = undefined;
});

async function setup(
  script: Script,
  provider: NonNullable<AgentConfigInput["provider"]>,
  session: { tokenBudget?: number; maxOutputTokens?: number; maxInFlight?: number } = {},
  options: Partial<RelayOptions> = {},
) {
  server = await startModelServer(script, { requireKey: KEY });
  relay = await Relay.start({
    provider,
    upstream: provider === "anthropic" ? server.anthropicUrl : server.openaiUrl,
    apiKey: KEY,
    retry: { maxRetries: 0, baseDelayMs: 5, maxDelayMs: 20 },
    ...options,
  });
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
  return { session: s, trajectory, base: await startForwarder(relay.socketPath) };
}

const statusOf = (p: Promise<unknown>) =>
  p.then(
    () => 200,
    (err: { status?: number }) => err.status ?? -1,
  );

describe("relay limits that hold under concurrency", () => {
  it("reserves max_tokens before forwarding: 20 concurrent calls cannot spend past the budget", async () => {
    // The scripted model spends its whole allowance: output = the max_tokens it was sent, input 10.
    // It answers only once every one of the 20 calls has reached it or ended (refused by the relay),
    // so that no reply frees a reservation while calls are still arriving (a fixed delay did not
    // hold under load: a late call was then admitted on the budget a finished one had released).
    const CALLS = 20;
    let ended = 0;
    let release = () => {};
    const held = new Promise<void>((done) => {
      release = done;
    });
    const settle = () => {
      if (ended + (server?.requests.length ?? 0) >= CALLS) release();
    };
    const { session, base } = await setup(
      (req) => {
        queueMicrotask(settle);
        return { text: "burn", hold: held, usage: { input: 10, output: Number(req.body.max_tokens) } };
      },
      "anthropic",
      { tokenBudget: 1200, maxOutputTokens: 500 },
    );
    const client = new Anthropic({ apiKey: session.token, baseURL: base, maxRetries: 0 });
    const one = () =>
      statusOf(
        client.messages.create({
          model: "claude-opus-big",
          max_tokens: 4000,
          messages: [{ role: "user", content: "burn" }],
        }),
      );
    const statuses = await Promise.all(
      Array.from({ length: CALLS }, () =>
        one().then((status) => {
          ended += 1;
          settle();
          return status;
        }),
      ),
    );
    // At most 4 in flight. The SDK's body {"model":"claude-opus-big","max_tokens":4000,"messages":
    // [{"role":"user","content":"burn"}]} is 91 bytes: its input bound is ceil(91 / 2) = 46 tokens.
    // Each call reserves 46 + min(4000 asked, 500 cap, budget left after reservations and its 46):
    // 1200 - 46 = 1154 -> 500 (546 held); 1200 - 546 - 46 = 608 -> 500 (1092 held);
    // 1200 - 1092 - 46 = 62 -> 62 (1200 held); then 1200 - 1200 - 46 < 1: refused (400) before forwarding.
    // Without the reservation all four would pass with 500 each: 2000 output tokens.
    expect(statuses.filter((s) => s === 200)).toHaveLength(3);
    expect(statuses.filter((s) => s === 400).length).toBeGreaterThanOrEqual(1);
    expect(statuses.filter((s) => s === 400 || s === 429)).toHaveLength(17);
    const granted = server!.requests.map((r) => Number(r.body.max_tokens)).sort((a, b) => a - b);
    expect(granted).toEqual([62, 500, 500]);
    for (const r of server!.requests) expect(r.body.model).toBe("configured-model");
    // Spent: output 500 + 500 + 62 = 1062, input 3 x 10 = 30: 1092 of the 1200.
    expect(session.usage().outputTokens).toBe(1062);
    expect(session.usage().inputTokens).toBe(30);
    // 1200 - 1092 - 46 = 62 left: one more call of 62 (1092 + 10 + 62 = 1164), then
    // 1200 - 1164 - 46 < 1: the budget is gone, refused without reaching the provider.
    expect(await one()).toBe(200);
    expect(server!.requests.at(-1)?.body.max_tokens).toBe(62);
    expect(await one()).toBe(400);
    expect(server!.requests).toHaveLength(4);
    expect(session.usage().inputTokens + session.usage().outputTokens).toBe(1164);
  });

  it("reserves the input tokens too (body bytes / 2): 8 concurrent long prompts never spend past the budget", async () => {
    // Each call really costs 1,000 input tokens (within its bound) plus the max_tokens it was sent.
    const { session, base } = await setup(
      (req) => ({ text: "burn", delayMs: 300, usage: { input: 1000, output: Number(req.body.max_tokens) } }),
      "anthropic",
      { tokenBudget: 3000, maxOutputTokens: 500, maxInFlight: 8 },
    );
    const client = new Anthropic({ apiKey: session.token, baseURL: base, maxRetries: 0 });
    const one = () =>
      statusOf(
        client.messages.create({
          model: "claude-opus-big",
          max_tokens: 4000,
          messages: [{ role: "user", content: "x".repeat(2000) }],
        }),
      );
    const statuses = await Promise.all(Array.from({ length: 8 }, one));
    // The body is the 91-byte one above with "burn" (4 bytes) replaced by 2,000 x: 91 - 4 + 2000 =
    // 2087 bytes, input bound ceil(2087 / 2) = 1044. Reservations: 3000 - 1044 = 1956 -> 500 output
    // (1544 held); 3000 - 1544 - 1044 = 412 -> 412 (3000 held); the other six: nothing left, 400.
    // Output-only reservations (before) let 3000 / 500 = 6 calls through: 6 x 1500 = 9000 spent.
    expect(statuses.filter((s) => s === 200)).toHaveLength(2);
    expect(statuses.filter((s) => s === 400)).toHaveLength(6);
    const granted = server!.requests.map((r) => Number(r.body.max_tokens)).sort((a, b) => a - b);
    expect(granted).toEqual([412, 500]);
    // Reconciled with the usage reported: 2 x 1000 input + 500 + 412 output = 2912 of the 3000.
    expect(session.usage().inputTokens).toBe(2000);
    expect(session.usage().outputTokens).toBe(912);
    // The reservations are released: 3000 - 2912 - 1044 < 1, so the next call is refused too.
    expect(await one()).toBe(400);
    expect(server!.requests).toHaveLength(2);
  });

  it("reserves the input tokens on Chat Completions too (the OpenAI SDK)", async () => {
    const { session, base } = await setup(
      (req) => ({ text: "burn", delayMs: 300, usage: { input: 1000, output: Number(req.body.max_tokens) } }),
      "openai",
      { tokenBudget: 3000, maxOutputTokens: 500, maxInFlight: 8 },
    );
    const client = new OpenAI({ apiKey: session.token, baseURL: `${base}/v1`, maxRetries: 0 });
    const one = () =>
      statusOf(
        client.chat.completions.create({
          model: "gpt-big",
          max_tokens: 4000,
          messages: [{ role: "user", content: "x".repeat(2000) }],
        }),
      );
    const statuses = await Promise.all(Array.from({ length: 8 }, one));
    // {"model":"gpt-big","max_tokens":4000,"messages":[{"role":"user","content":"<2000 x>"}]} is
    // 79 + 2000 = 2079 bytes: bound ceil(2079 / 2) = 1040. 3000 - 1040 = 1960 -> 500 (1540 held);
    // 3000 - 1540 - 1040 = 420 -> 420 (3000 held); the other six: 400.
    expect(statuses.filter((s) => s === 200)).toHaveLength(2);
    expect(statuses.filter((s) => s === 400)).toHaveLength(6);
    const granted = server!.requests.map((r) => Number(r.body.max_tokens)).sort((a, b) => a - b);
    expect(granted).toEqual([420, 500]);
    // 2 x 1000 input + 500 + 420 output = 2920 of the 3000.
    expect(session.usage().inputTokens + session.usage().outputTokens).toBe(2920);
  });

  it("meters count_tokens and models calls (the scripted server answers count_tokens 404)", async () => {
    const { session, trajectory, base } = await setup([{ text: "x" }], "anthropic");
    const client = new Anthropic({ apiKey: session.token, baseURL: base, maxRetries: 0 });
    await statusOf(
      client.messages.countTokens({ model: "other", messages: [{ role: "user", content: "x" }] }),
    );
    await client.models.list();
    expect(session.otherCalls).toBe(2);
    const notes = trajectory.events.filter((e) => e.kind === "relay-forwarded").map((e) => e.path);
    expect(notes).toEqual(["/v1/messages/count_tokens", "/v1/models"]);
  });
});

describe("relay memory", () => {
  it("refuses a body over the cap before parsing, then serves the next call", async () => {
    const { session, trajectory, base } = await setup(
      [{ text: "ok" }],
      "anthropic",
      {},
      { maxBodyBytes: 1 << 20 },
    );
    const client = new Anthropic({ apiKey: session.token, baseURL: base, maxRetries: 0 });
    // 3 MiB of text in one message: over the 1 MiB cap.
    const huge = "A".repeat(3 << 20);
    const status = await statusOf(
      client.messages.create({ model: "m", max_tokens: 5, messages: [{ role: "user", content: huge }] }),
    );
    expect(status).toBe(413);
    expect(server!.requests).toHaveLength(0);
    expect(trajectory.events).toContainEqual(
      expect.objectContaining({ kind: "relay-limit", limit: "body-size" }),
    );
    const ok = await client.messages.create({
      model: "m",
      max_tokens: 5,
      messages: [{ role: "user", content: "hi" }],
    });
    expect(ok.content[0]).toMatchObject({ type: "text", text: "ok" });
  });
});

describe("relay: a refused body still gets its answer", () => {
  it("clients still sending over-cap bodies read the 413, never a reset connection", async () => {
    const { session, base } = await setup([{ text: "ok" }], "anthropic", {}, { maxBodyBytes: 1 << 20 });
    const client = new Anthropic({ apiKey: session.token, baseURL: base, maxRetries: 0 });
    // 8 calls of 4 MiB each, 4 at a time, through the forwarder: the relay refuses each from its
    // header while the client is still sending; closing with the rest unread reset 16 of 20 calls
    // of 8 MiB before (a09259e), so 8 calls all answered is no luck. 4 MiB, not 8: what the relay
    // reads and throws away must arrive within its 10 s (DISCARD_MS), on a loaded machine too
    const huge = "A".repeat(4 << 20);
    const call = () =>
      statusOf(
        client.messages.create({ model: "m", max_tokens: 5, messages: [{ role: "user", content: huge }] }),
      );
    const statuses: number[] = [];
    for (let round = 0; round < 2; round++)
      statuses.push(...(await Promise.all([call(), call(), call(), call()])));
    expect(statuses).toEqual(Array(8).fill(413));
    expect(server!.requests).toHaveLength(0);
  }, 60_000);
});

describe("relay egress: nothing that makes the provider fetch", () => {
  const cases: Array<[string, NonNullable<AgentConfigInput["provider"]>, string, Record<string, unknown>]> = [
    [
      "an MCP connector",
      "anthropic",
      "/v1/messages",
      { mcp_servers: [{ type: "url", url: "https://evil.example/mcp", name: "x" }] },
    ],
    [
      "a URL image source",
      "anthropic",
      "/v1/messages",
      {
        messages: [
          {
            role: "user",
            content: [{ type: "image", source: { type: "url", url: "https://evil.example/a.png" } }],
          },
        ],
      },
    ],
    [
      "code_execution",
      "anthropic",
      "/v1/messages",
      { tools: [{ type: "code_execution_20250522", name: "code_execution" }] },
    ],
    [
      "an OpenAI mcp tool",
      "openai",
      "/v1/responses",
      { tools: [{ type: "mcp", server_url: "https://evil.example", server_label: "x" }] },
    ],
    [
      "an image_url URL",
      "openai",
      "/v1/chat/completions",
      {
        messages: [
          {
            role: "user",
            content: [{ type: "image_url", image_url: { url: "https://evil.example/a.png" } }],
          },
        ],
      },
    ],
  ];
  for (const [what, provider, path, extra] of cases) {
    it(`refuses ${what} with a clear error and forwards nothing`, async () => {
      const { session, base } = await setup([{ text: "never" }], provider);
      const basic =
        path === "/v1/responses"
          ? { model: "m", input: "hi" }
          : { model: "m", max_tokens: 5, messages: [{ role: "user", content: "hi" }] };
      const url = provider === "anthropic" ? `${base}${path}` : `${base}${path}`;
      const response = await fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-api-key": session.token,
          authorization: `Bearer ${session.token}`,
        },
        body: JSON.stringify({ ...basic, ...extra }),
      });
      expect(response.status).toBe(400);
      expect(await response.text()).toContain("refused: only fields that cannot make the provider fetch");
      expect(server!.requests).toHaveLength(0);
    });
  }

  it("still forwards an inline (data: URL) image through the OpenAI SDK", async () => {
    const { session, base } = await setup([{ text: "seen" }], "openai");
    const client = new OpenAI({ apiKey: session.token, baseURL: `${base}/v1`, maxRetries: 0 });
    const reply = await client.chat.completions.create({
      model: "m",
      messages: [
        { role: "user", content: [{ type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } }] },
      ],
    });
    expect(reply.choices[0]?.message.content).toBe("seen");
    expect(server!.requests[0]!.body.model).toBe("configured-model");
  });
});

describe("egressProblem on harness traffic", () => {
  it("passes client-side tools and their items (Codex's custom and local_shell), refuses hosted ones", () => {
    const turn = {
      model: "m",
      input: [
        { type: "message", role: "user", content: [{ type: "input_text", text: "go" }] },
        { type: "custom_tool_call", call_id: "c1", name: "apply_patch", input: "*** Begin Patch" },
        { type: "custom_tool_call_output", call_id: "c1", output: "ok" },
      ],
      tools: [{ type: "custom", name: "apply_patch" }, { type: "local_shell" }],
    };
    expect(egressProblem("openai-responses", turn)).toBeNull();
    expect(egressProblem("openai-responses", { ...turn, tools: [{ type: "file_search" }] })).toBe(
      'tools[0]: hosted tool type "file_search"',
    );
    expect(
      egressProblem("openai-responses", { ...turn, input: [{ type: "input_file", file_url: "https://x" }] }),
    ).toBe("input[0].file_url: a URL that is not a data: URL");
    // A tool_result's document whose content holds a URL image (round 2's A2): found where it sits.
    const nested = {
      model: "m",
      max_tokens: 5,
      messages: [
        {
          role: "user",
          content: [
            {
              type: "tool_result",
              tool_use_id: "t",
              content: [
                {
                  type: "document",
                  source: {
                    type: "content",
                    content: [{ type: "image", source: { type: "url", url: "http://x" } }],
                  },
                },
              ],
            },
          ],
        },
      ],
    };
    expect(egressProblem("anthropic", nested)).toBe(
      'messages[0].content[0].content[0].source.content[0].source: type "url"',
    );
  });
});

describe("relay floods", () => {
  it("caps connections: a flood of 200 sockets keeps at most maxConnections open, and a call after it works", async () => {
    const { session, base } = await setup([{ text: "ok" }], "anthropic", {}, { maxConnections: 8 });
    // the relay's own server, watched by its events (no wall clock): what it accepted, what it dropped
    const http = (relay as unknown as { server: Server }).server;
    let open = 0;
    let peak = 0;
    let dropped = 0;
    const changed = new EventEmitter();
    const until = (done: () => boolean) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (!done()) return;
          changed.off("change", check);
          resolve();
        };
        changed.on("change", check);
        check();
      });
    http.on("connection", (c: Socket) => {
      open += 1;
      peak = Math.max(peak, open);
      c.once("close", () => {
        open -= 1;
        changed.emit("change");
      });
      changed.emit("change");
    });
    http.on("drop", () => {
      dropped += 1;
      changed.emit("change");
    });
    const sockets = Array.from({ length: 200 }, () => {
      const s = connect(relay!.socketPath);
      s.on("error", () => {});
      return s;
    });
    // the 8 kept stay open (their clients send nothing), so Node drops every other one as it
    // accepts it: 200 - 8 = 192 dropped, and never more than 8 open at once
    await until(() => dropped === 192 && open === 8);
    expect(peak).toBe(8);
    for (const s of sockets) s.destroy();
    await until(() => open === 0);
    const client = new Anthropic({ apiKey: session.token, baseURL: base, maxRetries: 0 });
    const ok = await client.messages.create({
      model: "m",
      max_tokens: 5,
      messages: [{ role: "user", content: "hi" }],
    });
    expect(ok.content[0]).toMatchObject({ text: "ok" });
  });

  it("records one bounded context event for a request carrying 100,000 user texts", async () => {
    // The body is about 3.4 MB, an input bound of about 1.7 million tokens (bytes / 2): a budget of
    // 3 million lets it through.
    const { session, trajectory } = await setup([{ text: "ok" }], "anthropic", { tokenBudget: 3_000_000 });
    const messages = Array.from({ length: 100_000 }, (_, i) => ({ role: "user", content: `t${i}` }));
    const body = JSON.stringify({
      model: "m",
      max_tokens: 5,
      tools: [{ name: "bash", input_schema: { type: "object" } }],
      messages,
    });
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          socketPath: relay!.socketPath,
          path: "/v1/messages",
          method: "POST",
          headers: { "x-api-key": session.token, "content-type": "application/json" },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", reject);
      req.end(body);
    });
    expect(status).toBe(200);
    const context = trajectory.events.filter((e) => e.kind === "harness-context");
    expect(context).toHaveLength(1);
    // 10,000 distinct texts are remembered (as hashes) per session: the other 90,000 are neither
    // remembered nor narrated, and reaching the cap is one note.
    expect(context[0]).toMatchObject({ texts: 10_000, truncated: true });
    expect(trajectory.events.filter((e) => e.kind === "relay-memory-cap")).toEqual([
      expect.objectContaining({ what: "seen-texts", cap: 10_000 }),
    ]);
    // 64 KiB of text at most in the event (plus the separators' slack of capText: none).
    expect(Buffer.byteLength(String(context[0]!.text))).toBeLessThanOrEqual(64 * 1024);
    // The whole trajectory of the call: the cap note, the context note and the model turn.
    expect(trajectory.events.length).toBeLessThanOrEqual(3);
  });
});
