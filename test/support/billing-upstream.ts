// Test support: a loopback provider that bills as a real one does and counts what it billed. It
// answers the three wire formats kgate relays (Anthropic Messages, OpenAI Chat Completions, OpenAI
// Responses), streamed (SSE, with the line ending and the chunking asked for) or whole; it bills a
// request's input when it starts answering it 200 (an error status bills nothing), and each output
// token as it generates it, stopping when its client hangs up (what it generated is billed all the
// same) and at the output cap the request carries. Each request's step comes from a policy.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type Wire = "anthropic" | "openai-chat" | "openai-responses";

export interface BillingStep {
  /** Answer with this error status instead (billed nothing). */
  status?: number;
  /** Text deltas to generate, `tokensPerDelta` tokens each (fewer if the output cap comes first). */
  deltas: number;
  tokensPerDelta: number;
  /** The text of each delta (default: 4 characters a token). */
  text?: string;
  /** Stream the reply (SSE) when the request asks for it; otherwise one JSON body. */
  lineEnd?: "\n" | "\r" | "\r\n";
  /** Write the reply in pieces of this many bytes (1: byte by byte; splits multi-byte characters). */
  pieceBytes?: number;
  /** Generation waits for this before its last delta, or its end (a test ends the session meanwhile). */
  hold?: Promise<void>;
  /** What the request is billed is also added up under this name (`byTag`). */
  tag?: string;
}

export interface Billed {
  /** Tokens billed, by kind, and the requests billed. */
  input: number;
  cacheWrite: number;
  cacheWrite1h: number;
  output: number;
  requests: number;
}

export interface BillingUpstream {
  url: string;
  billed: Billed;
  /** Output deltas written per request, in order of arrival (for the test's arithmetic). */
  generated: number[];
  /** Requests answered to their end (the last event written). */
  completed: { count: number };
  /** What was billed per step tag. */
  byTag: Map<string, Billed>;
  /** Requests being answered now. */
  active: { count: number };
  close(): Promise<void>;
}

type Json = Record<string, unknown>;
const WIRES: ReadonlyMap<string, Wire> = new Map([
  ["/v1/messages", "anthropic"],
  ["/v1/chat/completions", "openai-chat"],
  ["/v1/responses", "openai-responses"],
]);

/**
 * What the request sends, as the provider counts it: a quarter of its body's bytes (a real tokenizer
 * spends 3.5 to 4 bytes of English a token); all of it written to the 1-hour cache when an Anthropic
 * request marks a block `ttl: "1h"`.
 */
function inputOf(wire: Wire, text: string): { input: number; cacheWrite: number; cacheWrite1h: number } {
  const sent = Math.ceil(Buffer.byteLength(text) / 4);
  if (wire === "anthropic" && text.includes('"ttl":"1h"'))
    return { input: 0, cacheWrite: sent, cacheWrite1h: sent };
  return { input: sent, cacheWrite: 0, cacheWrite1h: 0 };
}

const capOf = (b: Json): number =>
  [b.max_tokens, b.max_completion_tokens, b.max_output_tokens].find((v) => typeof v === "number") as number;

function usageJson(wire: Wire, i: ReturnType<typeof inputOf>, output: number): Json {
  if (wire === "anthropic") {
    return {
      input_tokens: i.input,
      output_tokens: output,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: i.cacheWrite,
      cache_creation: {
        ephemeral_5m_input_tokens: i.cacheWrite - i.cacheWrite1h,
        ephemeral_1h_input_tokens: i.cacheWrite1h,
      },
    };
  }
  const prompt = i.input + i.cacheWrite;
  return wire === "openai-chat"
    ? { prompt_tokens: prompt, completion_tokens: output, total_tokens: prompt + output }
    : { input_tokens: prompt, output_tokens: output, total_tokens: prompt + output };
}

/** The SSE events of a reply: its start, a delta's (`text`), its end (the whole `text`, the usage). */
function events(
  wire: Wire,
  kind: "start" | "delta" | "end",
  text: string,
  usage: Json,
): Array<[string | null, Json]> {
  if (wire === "anthropic") {
    if (kind === "start")
      return [
        [
          "message_start",
          {
            type: "message_start",
            message: {
              id: "m",
              type: "message",
              role: "assistant",
              content: [],
              usage: { ...usage, output_tokens: 1 },
            },
          },
        ],
        [
          "content_block_start",
          { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
        ],
      ];
    if (kind === "delta")
      return [
        [
          "content_block_delta",
          { type: "content_block_delta", index: 0, delta: { type: "text_delta", text } },
        ],
      ];
    return [
      ["content_block_stop", { type: "content_block_stop", index: 0 }],
      [
        "message_delta",
        {
          type: "message_delta",
          delta: { stop_reason: "end_turn" },
          usage: { output_tokens: usage.output_tokens },
        },
      ],
      ["message_stop", { type: "message_stop" }],
    ];
  }
  if (wire === "openai-chat") {
    if (kind === "start") return [];
    if (kind === "delta")
      return [
        [
          null,
          {
            id: "c",
            object: "chat.completion.chunk",
            choices: [{ index: 0, delta: { content: text }, finish_reason: null }],
            usage: null,
          },
        ],
      ];
    return [
      [
        null,
        {
          id: "c",
          object: "chat.completion.chunk",
          choices: [{ index: 0, delta: {}, finish_reason: "stop" }],
          usage: null,
        },
      ],
      [null, { id: "c", object: "chat.completion.chunk", choices: [], usage }],
    ];
  }
  if (kind === "start")
    return [["response.created", { type: "response.created", response: { id: "r", status: "in_progress" } }]];
  if (kind === "delta")
    return [["response.output_text.delta", { type: "response.output_text.delta", delta: text }]];
  const output = [{ type: "message", content: [{ type: "output_text", text }] }];
  return [
    [
      "response.completed",
      { type: "response.completed", response: { id: "r", status: "completed", output, usage } },
    ],
  ];
}

function wholeBody(wire: Wire, text: string, usage: Json): Json {
  if (wire === "anthropic")
    return {
      id: "m",
      type: "message",
      role: "assistant",
      content: [{ type: "text", text }],
      stop_reason: "end_turn",
      usage,
    };
  if (wire === "openai-chat")
    return {
      id: "c",
      object: "chat.completion",
      choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
      usage,
    };
  return {
    id: "r",
    object: "response",
    status: "completed",
    output: [{ type: "message", content: [{ type: "output_text", text }] }],
    usage,
  };
}

/** Writes `bytes` in pieces, yielding between them; false once the client is gone. */
async function write(res: ServerResponse, bytes: Buffer, piece: number): Promise<boolean> {
  for (let at = 0; at < bytes.length; at += piece) {
    if (res.destroyed) return false;
    res.write(bytes.subarray(at, at + piece));
    await new Promise((r) => setImmediate(r));
  }
  return !res.destroyed;
}

export async function startBillingUpstream(
  policy: (body: Json, wire: Wire) => BillingStep,
): Promise<BillingUpstream> {
  const billed: Billed = { input: 0, cacheWrite: 0, cacheWrite1h: 0, output: 0, requests: 0 };
  const generated: number[] = [];
  const completed = { count: 0 };
  const active = { count: 0 };
  const byTag = new Map<string, Billed>();
  const server = createServer((req, res) => {
    active.count += 1;
    void answer(req, res)
      .catch(() => res.destroy())
      .finally(() => {
        active.count -= 1;
      });
  });
  /** Adds to the totals and to the step's tag. */
  const bill = (tag: string | undefined, add: Partial<Billed>) => {
    const tagged =
      tag === undefined
        ? null
        : (byTag.get(tag) ?? { input: 0, cacheWrite: 0, cacheWrite1h: 0, output: 0, requests: 0 });
    for (const target of tagged ? [billed, tagged] : [billed])
      for (const [k, v] of Object.entries(add)) target[k as keyof Billed] += v;
    if (tag !== undefined && tagged) byTag.set(tag, tagged);
  };

  async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    const wire = WIRES.get((req.url ?? "").split("?")[0]!);
    if (!wire) return void res.writeHead(404).end();
    const body = JSON.parse(text) as Json;
    const step = policy(body, wire);
    if (step.status) {
      res.writeHead(step.status, { "content-type": "application/json" });
      return void res.end(
        JSON.stringify({ type: "error", error: { type: "api_error", message: `scripted ${step.status}` } }),
      );
    }
    const input = inputOf(wire, text);
    bill(step.tag, { ...input, requests: 1 });
    const slot = generated.push(0) - 1;
    const deltas = Math.min(step.deltas, Math.floor(capOf(body) / step.tokensPerDelta));
    const piece = step.pieceBytes ?? 1 << 20;
    const deltaText = step.text ?? "x".repeat(4 * step.tokensPerDelta);
    const generate = () => {
      generated[slot]! += 1;
      bill(step.tag, { output: step.tokensPerDelta });
    };
    if (body.stream !== true) {
      for (let k = 0; k < deltas; k++) {
        if (k === deltas - 1) await step.hold;
        generate();
      }
      if (deltas === 0) await step.hold;
      if (res.destroyed) return;
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify(
          wholeBody(wire, deltaText.repeat(deltas), usageJson(wire, input, deltas * step.tokensPerDelta)),
        ),
      );
      completed.count += 1;
      return;
    }
    const end = step.lineEnd ?? "\n";
    const sse = (list: Array<[string | null, Json]>) =>
      Buffer.from(
        list
          .map(([e, d]) => `${e ? `event: ${e}${end}` : ""}data: ${JSON.stringify(d)}${end}${end}`)
          .join(""),
      );
    res.writeHead(200, { "content-type": "text/event-stream" });
    const usage = usageJson(wire, input, deltas * step.tokensPerDelta);
    if (!(await write(res, sse(events(wire, "start", "", usage)), piece))) return;
    for (let k = 0; k < deltas; k++) {
      if (k === deltas - 1) await step.hold;
      if (res.destroyed) return;
      generate();
      if (!(await write(res, sse(events(wire, "delta", deltaText, usage)), piece))) return;
    }
    if (deltas === 0) await step.hold;
    if (!(await write(res, sse(events(wire, "end", deltaText.repeat(deltas), usage)), piece))) return;
    if (wire === "openai-chat" && !(await write(res, Buffer.from(`data: [DONE]${end}${end}`), piece))) return;
    res.end();
    completed.count += 1;
  }

  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    billed,
    generated,
    completed,
    byTag,
    active,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
