// Test support: an upstream on 127.0.0.1 that records every request the relay forwards (method, path
// with query, headers, raw body) and answers like a provider that bills what it was asked for:
// Messages and Responses spend the output cap they were sent, Chat Completions spends it once per
// choice (`n`), as a provider generating n choices would. `stall` holds the answer back: before the
// headers, or after the headers and the first SSE event. Also a raw request helper for the relay's
// socket (the bytes a hostile harness would send, not an SDK's).
import { createServer, request, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface Captured {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface CaptureUpstream {
  url: string;
  seen: Captured[];
  /** "headers": never answers; "body": sends the headers and one event, then nothing. */
  stall: "headers" | "body" | null;
  /** Closes once every response held back by `stall` has been released. */
  close(): Promise<void>;
}

type Json = Record<string, unknown>;
const num = (v: unknown): number | null => (typeof v === "number" ? v : null);

function reply(res: ServerResponse, url: string, body: Json): void {
  const cap = num(body.max_completion_tokens) ?? num(body.max_tokens) ?? num(body.max_output_tokens) ?? 10;
  res.writeHead(200, { "content-type": "application/json" });
  if (url.includes("/chat/completions")) {
    const n = num(body.n) ?? 1;
    const choices = Array.from({ length: n }, (_, index) => ({
      index,
      message: { role: "assistant", content: "ok" },
      finish_reason: "length",
    }));
    const usage = { prompt_tokens: 10, completion_tokens: n * cap, total_tokens: 10 + n * cap };
    res.end(JSON.stringify({ id: "c", object: "chat.completion", choices, usage }));
  } else if (url.includes("/responses")) {
    const usage = { input_tokens: 10, output_tokens: cap, total_tokens: 10 + cap };
    res.end(JSON.stringify({ id: "r", object: "response", status: "completed", output: [], usage }));
  } else if (url.includes("/models")) {
    res.end(JSON.stringify({ object: "list", data: [], has_more: false }));
  } else {
    const usage = { input_tokens: 10, output_tokens: cap };
    res.end(
      JSON.stringify({
        id: "m",
        type: "message",
        role: "assistant",
        content: [{ type: "text", text: "ok" }],
        stop_reason: "end_turn",
        usage,
      }),
    );
  }
}

export async function startCaptureUpstream(): Promise<CaptureUpstream> {
  const seen: Captured[] = [];
  const held = new Set<ServerResponse>();
  const upstream: CaptureUpstream = {
    url: "",
    seen,
    stall: null,
    close: () =>
      new Promise<void>((done) => {
        for (const res of held) res.destroy();
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      if (upstream.stall === "headers") return void held.add(res);
      if (upstream.stall === "body") {
        held.add(res);
        res.writeHead(200, { "content-type": "text/event-stream" });
        const start = { type: "message_start", message: { usage: { input_tokens: 10, output_tokens: 1 } } };
        return void res.write(`event: message_start\ndata: ${JSON.stringify(start)}\n\n`);
      }
      let json: unknown = null;
      try {
        json = JSON.parse(body);
      } catch {}
      reply(res, req.url ?? "", json && typeof json === "object" ? (json as Json) : {});
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  upstream.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return upstream;
}

/** Sends raw bytes to the relay's socket as the harness's token; the status and the body's start. */
export function sendRaw(
  socketPath: string,
  token: string,
  call: { method: string; path: string; body?: string | null; headers?: Record<string, string> },
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        socketPath,
        method: call.method,
        path: call.path,
        headers: {
          "x-api-key": token,
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          // declared, so that a GET's body is framed too (Node sends a GET's body unframed otherwise)
          ...(typeof call.body === "string"
            ? { "content-length": String(Buffer.byteLength(call.body)) }
            : {}),
          ...call.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (d: Buffer) => chunks.push(d));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    if (call.body !== undefined && call.body !== null) req.write(call.body);
    req.end();
  });
}
