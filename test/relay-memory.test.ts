// The relay's memory per session (issue 29, item 3; the red team's relay-mem.ts): calls the provider
// rejects cost nothing but were unbounded, every distinct user text was kept, and every refused
// request wrote an event (20,000 in 2.6 s) until V8's heap aborted with 0 turns and 0 tokens. Now the
// rejected calls of a trial are counted against a limit, texts are remembered as hashes under a cap,
// the narration of a session is capped, and refusals are counters with one event per kind and minute.
// Counts and caps are asserted here; the memory figure is `npm run bench relay-memory`.
import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { MAX_SEEN, NARRATION_BYTES, Narrator } from "../src/agents/relay/narration.ts";
import { Relay } from "../src/agents/relay/server.ts";
import type { RelaySession } from "../src/agents/relay/session.ts";
import { TrajectoryRecorder } from "../src/agents/trajectory.ts";
import { sendRaw, startCaptureUpstream } from "./support/capture-upstream.ts";
import { type ModelServer, startModelServer } from "./support/model-server.ts";

let server: ModelServer | undefined;
let relay: Relay | undefined;
afterEach(async () => {
  await relay?.close();
  await server?.close();
  relay = server = undefined;
});

async function open(upstream: string, session: { maxRejectedCalls?: number; now?: () => number } = {}) {
  relay = await Relay.start({
    provider: "anthropic",
    upstream,
    apiKey: "k",
    retry: { maxRetries: 0, baseDelayMs: 1, maxDelayMs: 1 },
  });
  const trajectory = new TrajectoryRecorder();
  const s: RelaySession = relay.openSession({
    tokenBudget: 100_000_000,
    maxTurns: 50,
    pricing: null,
    trajectory,
    model: "m",
    maxOutputTokens: 1000,
    ...session,
  });
  const r = relay;
  const post = (path: string, body: unknown) =>
    sendRaw(r.socketPath, s.token, { method: "POST", path, body: JSON.stringify(body) });
  return { session: s, trajectory, post };
}

const TOOLS = [{ name: "t", input_schema: { type: "object" } }];

describe("calls the provider rejects", () => {
  it("count against maxRejectedCalls: 40 calls of distinct 100 KB texts, 5 reach the provider", async () => {
    server = await startModelServer(() => ({ status: 400, message: "temperature: must be <= 1" }));
    const { session, trajectory, post } = await open(server.anthropicUrl, { maxRejectedCalls: 5 });
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) {
      const text = randomBytes(50_000).toString("hex"); // 100,000 characters, distinct each call
      const body = {
        model: "x",
        max_tokens: 10,
        temperature: 5,
        tools: TOOLS,
        messages: [{ role: "user", content: text }],
      };
      statuses.push((await post("/v1/messages", body)).status);
    }
    // 5 rejected by the provider (400), the other 35 refused by the relay before it (429)
    expect(statuses.filter((s) => s === 400)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(35);
    expect(server.requests).toHaveLength(5);
    expect(session.rejectedCalls).toBe(5);
    expect(session.rejection).toMatchObject({ kind: "provider-rejected" });
    expect(session.infraFailure).toBeNull();
    expect(session.turns).toBe(0);
    // What stays: 5 distinct texts remembered (hashes), 5 context events, 5 errors, and the limit
    // counted: its first refusal as it happened, the other 34 in one summary at the end.
    expect(session.narrator.seen.texts).toBe(5);
    session.flush();
    expect(trajectory.events.filter((e) => e.kind === "harness-context")).toHaveLength(5);
    expect(trajectory.events.filter((e) => e.type === "error")).toHaveLength(5);
    const limits = trajectory.events.filter((e) => e.kind === "relay-limit");
    expect(limits.map((e) => [e.limit, e.count])).toEqual([
      ["rejected-calls", 1],
      ["rejected-calls", 34],
    ]);
    // 64 KiB per context event at most: the in-memory trajectory holds under 5 x 64 KiB of text,
    // where the 40 calls sent 4,000,000 characters.
    const bytes = trajectory.events.reduce((n, e) => n + JSON.stringify(e).length, 0);
    expect(bytes).toBeLessThan(5 * 64 * 1024 + 20_000);
  });
});

describe("the narration of a session", () => {
  it(`stops at ${NARRATION_BYTES / 1024 / 1024} MiB of text with one note: 12 calls of 64 new 16 KiB tool results`, async () => {
    const upstream = await startCaptureUpstream();
    try {
      const { trajectory, post } = await open(upstream.url);
      const output = "r".repeat(16 * 1024);
      for (let call = 0; call < 12; call++) {
        const results = Array.from({ length: 64 }, (_, i) => ({
          type: "tool_result",
          tool_use_id: `c${call}-${i}`,
          content: output,
        }));
        const messages = [
          { role: "user", content: "go" },
          { role: "assistant", content: [{ type: "tool_use", id: "u", name: "t", input: {} }] },
          { role: "user", content: results },
        ];
        expect(
          (await post("/v1/messages", { model: "x", max_tokens: 10, tools: TOOLS, messages })).status,
        ).toBe(200);
      }
      // Each result narrates 16,384 bytes: 8 MiB = 8,388,608 / 16,384 = 512 results (8 calls of 64),
      // then the cap is noted once and the other 4 x 64 = 256 results are only counted. ("go" is 2
      // bytes of context narrated first: 511 results fit below the cap, the 512th crosses it.)
      const results = trajectory.events.filter((e) => e.type === "tool-result");
      expect(results).toHaveLength(512);
      expect(trajectory.events.filter((e) => e.kind === "relay-memory-cap")).toEqual([
        expect.objectContaining({ what: "narration", cap: NARRATION_BYTES }),
      ]);
      const omitted = trajectory.events.filter((e) => e.kind === "tool-results-omitted");
      expect(omitted.reduce((n, e) => n + Number(e.count), 0)).toBe(256);
    } finally {
      await upstream.close();
    }
  });
});

describe("what a session remembers of the texts it saw", () => {
  it(`stops at ${MAX_SEEN.toLocaleString("en")} distinct texts and tool-result ids, with one note each`, () => {
    const trajectory = new TrajectoryRecorder();
    const narrator = new Narrator(trajectory);
    // 10,050 distinct one-line texts and 10,050 distinct result ids, 50 per call over 201 calls
    for (let call = 0; call < 201; call++) {
      const texts = Array.from({ length: 50 }, (_, i) => `text ${call}-${i}`);
      const results = Array.from({ length: 50 }, (_, i) => ({
        id: `r${call}-${i}`,
        output: "o",
        isError: false,
      }));
      narrator.request(call + 1, "", texts, results);
    }
    // 10,000 remembered of each, the other 50 neither remembered nor narrated
    expect(narrator.seen).toEqual({ texts: MAX_SEEN, results: MAX_SEEN });
    const caps = trajectory.events.filter((e) => e.kind === "relay-memory-cap");
    expect(caps.map((e) => [e.what, e.cap])).toEqual([
      ["seen-texts", MAX_SEEN],
      ["seen-results", MAX_SEEN],
    ]);
    expect(trajectory.events.filter((e) => e.type === "tool-result")).toHaveLength(MAX_SEEN);
  });
});

describe("refusals are counters", () => {
  it("5,000 refused requests write one event per kind and minute (the red team: 20,000 requests, 20,000 events)", async () => {
    server = await startModelServer([{ text: "never" }]);
    let clock = 0;
    const { session, trajectory } = await open(server.anthropicUrl, { now: () => clock });
    const get = (path: string, method = "POST") =>
      sendRaw(relay!.socketPath, session.token, { method, path, body: "" });
    for (let i = 0; i < 5000; i++) expect((await get("/v1/files")).status).toBe(404);
    for (let i = 0; i < 100; i++) expect((await get("/v1/messages", "DELETE")).status).toBe(405);
    const refused = () => trajectory.events.filter((e) => e.kind === "relay-refused");
    // the first of each kind at once: the path (count 1) and the method (count 1)
    expect(refused().map((e) => [e.reason, e.count])).toEqual([
      ["path", 1],
      ["method", 1],
    ]);
    // a minute later the next refusal of the path kind first writes the summary of the other 4,999
    clock = 61_000;
    await get("/v1/files");
    session.flush();
    expect(refused().map((e) => [e.reason, e.count, e.summary ?? false])).toEqual([
      ["path", 1, false],
      ["method", 1, false],
      ["path", 4999, true],
      ["path", 1, false],
      ["method", 99, true],
    ]);
    // every refusal is counted once: 5,000 + 1 paths, 100 methods
    expect(session.notes.totals.get("relay-refused:path")).toBe(5001);
    expect(session.notes.totals.get("relay-refused:method")).toBe(100);
    expect(server.requests).toHaveLength(0);
  }, 120_000);
});
