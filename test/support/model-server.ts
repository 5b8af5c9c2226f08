// Test support: a real HTTP server on 127.0.0.1 speaking the Anthropic Messages API, OpenAI Chat
// Completions and OpenAI Responses (tool use, usage, streaming, 429/500 on demand) with scripted replies.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { PromptCache, type PromptCacheOptions } from "./model-cache.ts";
import {
  anthropicEvents,
  anthropicMessage,
  chatCompletion,
  chatCompletionChunks,
  errorBody,
  type ReplyUsage,
  type ResolvedReply,
  responsesEvents,
  responsesObject,
  type ScriptedToolCall,
} from "./model-wire.ts";

export type Api = "anthropic" | "openai-chat" | "openai-responses";

export interface ScriptedReply {
  text?: string;
  toolCalls?: ScriptedToolCall[];
  /** Token counts to report; by default estimated from the request and reply sizes. */
  usage?: Partial<ReplyUsage>;
  /** Report the reply as cut off at max tokens. */
  truncated?: boolean;
  /** Wait this long before answering (for timeouts). */
  delayMs?: number;
  /** Answer only once this settles (a test holds replies until its other calls have ended). */
  hold?: Promise<void>;
}

export interface ScriptedFailure {
  status: number;
  message?: string;
  headers?: Record<string, string>;
}

export type ScriptStep = ScriptedReply | ScriptedFailure;

export interface SeenRequest {
  api: Api;
  path: string;
  headers: IncomingMessage["headers"];
  body: Record<string, unknown>;
  stream: boolean;
}

/** A fixed list of steps (one per request, the last repeating) or a policy of the request. */
export type Script = ScriptStep[] | ((request: SeenRequest, index: number) => ScriptStep);

export interface ModelServer {
  /** Base URL for the Anthropic SDK (it appends /v1/messages). */
  anthropicUrl: string;
  /** Base URL for the OpenAI SDK (it appends /chat/completions). */
  openaiUrl: string;
  port: number;
  requests: SeenRequest[];
  /** GET /v1/models calls so far (readiness probes). */
  modelListCalls: { count: number };
  close(): Promise<void>;
}

export interface ModelServerOptions {
  /** When set, requests without this key (x-api-key or Bearer) get 401. */
  requireKey?: string;
  /**
   * Bill input like a provider with a prompt cache (Messages: cache_control breakpoints; Chat
   * Completions: automatic prefixes), unless a step gives its own usage. Off: all input is uncached.
   */
  promptCache?: PromptCacheOptions;
}

const API_PATHS: Record<string, Api> = {
  "/v1/messages": "anthropic",
  "/v1/chat/completions": "openai-chat",
  "/v1/responses": "openai-responses",
};

const estimate = (text: string) => Math.max(1, Math.ceil(text.length / 4));

function resolve(step: ScriptedReply, request: SeenRequest, cache: PromptCache | null): ResolvedReply {
  const text = step.text ?? "";
  const calls = step.toolCalls ?? [];
  const output = step.usage?.output ?? estimate(text + JSON.stringify(calls));
  const cached =
    cache && request.api !== "openai-responses" && !step.usage
      ? cache.account(request.api, request.body)
      : null;
  return {
    text,
    toolCalls: calls,
    truncated: step.truncated ?? false,
    model: String(request.body.model ?? "scripted-model"),
    usage: cached
      ? { ...cached, output }
      : {
          input: step.usage?.input ?? estimate(JSON.stringify(request.body)),
          output,
          cacheRead: step.usage?.cacheRead ?? 0,
          cacheWrite: step.usage?.cacheWrite ?? 0,
        },
  };
}

function sse(res: ServerResponse, events: Array<[string | null, unknown]>, done: boolean): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  for (const [event, data] of events) {
    res.write(`${event ? `event: ${event}\n` : ""}data: ${JSON.stringify(data)}\n\n`);
  }
  if (done) res.write("data: [DONE]\n\n");
  res.end();
}

function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

function keyOf(req: IncomingMessage): string | undefined {
  const header = req.headers["x-api-key"] ?? req.headers.authorization;
  const value = Array.isArray(header) ? header[0] : header;
  return value?.replace(/^Bearer\s+/i, "");
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export async function startModelServer(
  script: Script,
  options: ModelServerOptions = {},
): Promise<ModelServer> {
  const requests: SeenRequest[] = [];
  const modelListCalls = { count: 0 };
  const cache = options.promptCache ? new PromptCache(options.promptCache) : null;
  const server = createServer((req, res) => {
    void handle(req, res).catch((err) => json(res, 500, { error: { message: String(err) } }));
  });

  /** The models list, in a body both SDKs accept (OpenAI's `object: list`, Anthropic's paging fields). */
  function modelsList(req: IncomingMessage, res: ServerResponse): void {
    modelListCalls.count += 1;
    if (options.requireKey !== undefined && keyOf(req) !== options.requireKey) {
      json(res, 401, errorBody("openai", 401, "invalid key"));
      return;
    }
    const model = {
      id: "scripted-model",
      object: "model",
      type: "model",
      display_name: "scripted",
      created: 0,
      created_at: "2026-01-01T00:00:00Z",
      owned_by: "kgate-test",
    };
    json(res, 200, { object: "list", data: [model], has_more: false, first_id: model.id, last_id: model.id });
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? "/").split("?")[0]!;
    const api = API_PATHS[path];
    const text = await readBody(req);
    if (req.method === "GET" && path === "/v1/models") return modelsList(req, res);
    if (req.method !== "POST" || !api)
      return json(res, 404, { error: { message: `no route ${req.method} ${path}` } });
    const wire = api === "anthropic" ? "anthropic" : "openai";
    if (options.requireKey !== undefined && keyOf(req) !== options.requireKey) {
      return json(res, 401, errorBody(wire, 401, "invalid x-api-key"));
    }
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return json(res, 400, errorBody(wire, 400, "body is not JSON"));
    }
    const seen: SeenRequest = { api, path, headers: req.headers, body, stream: body.stream === true };
    const index = requests.push(seen) - 1;
    const step =
      typeof script === "function" ? script(seen, index) : script[Math.min(index, script.length - 1)];
    if (!step) return json(res, 500, errorBody(wire, 500, "script is empty"));
    if ("status" in step) {
      return json(
        res,
        step.status,
        errorBody(wire, step.status, step.message ?? `scripted ${step.status}`),
        step.headers,
      );
    }
    if (step.delayMs || step.hold) {
      const closed = await new Promise<boolean>((done) => {
        const timer = step.delayMs ? setTimeout(() => done(false), step.delayMs) : undefined;
        step.hold?.then(() => done(false));
        res.on("close", () => {
          clearTimeout(timer);
          done(true);
        });
      });
      if (closed) return;
    }
    const reply = resolve(step, seen, cache);
    if (api === "anthropic") {
      return seen.stream ? sse(res, anthropicEvents(reply), false) : json(res, 200, anthropicMessage(reply));
    }
    if (api === "openai-chat") {
      if (!seen.stream) return json(res, 200, chatCompletion(reply));
      const includeUsage =
        (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
      return sse(
        res,
        chatCompletionChunks(reply, includeUsage).map((c) => [null, c]),
        true,
      );
    }
    return seen.stream ? sse(res, responsesEvents(reply), false) : json(res, 200, responsesObject(reply));
  }

  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    anthropicUrl: `http://127.0.0.1:${port}`,
    openaiUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    modelListCalls,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

/** The system prompt's text in any API: a string, or text blocks (Anthropic, with cache breakpoints). */
export function systemText(request: SeenRequest): string {
  const flatten = (value: unknown): string =>
    typeof value === "string"
      ? value
      : Array.isArray(value)
        ? value.map((b: { text?: unknown }) => (typeof b.text === "string" ? b.text : "")).join("\n")
        : "";
  if (request.api === "anthropic") return flatten(request.body.system);
  if (request.api === "openai-responses") return flatten(request.body.instructions);
  const messages = (request.body.messages as Array<{ role: string; content: unknown }> | undefined) ?? [];
  return messages
    .filter((m) => m.role === "system" || m.role === "developer")
    .map((m) => flatten(m.content))
    .join("\n");
}

/** The text of the tool results the request ends with (what the agent just saw), in any API. */
export function lastToolResults(request: SeenRequest): string[] {
  const out: string[] = [];
  if (request.api === "anthropic") {
    const messages = request.body.messages as Array<{ role: string; content: unknown }>;
    const last = messages.at(-1);
    if (last?.role !== "user" || !Array.isArray(last.content)) return out;
    for (const block of last.content as Array<{ type: string; content?: unknown }>) {
      if (block.type !== "tool_result") continue;
      const c = block.content;
      out.push(typeof c === "string" ? c : (c as Array<{ text?: string }>).map((p) => p.text ?? "").join(""));
    }
    return out;
  }
  if (request.api === "openai-chat") {
    const messages = request.body.messages as Array<{ role: string; content: unknown }>;
    for (let i = messages.length - 1; i >= 0 && messages[i]!.role === "tool"; i--) {
      out.unshift(String(messages[i]!.content));
    }
    return out;
  }
  const input = request.body.input;
  if (!Array.isArray(input)) return out;
  for (let i = input.length - 1; i >= 0 && input[i].type === "function_call_output"; i--) {
    out.unshift(String(input[i].output));
  }
  return out;
}

/** How many assistant turns the conversation already holds (0 on the first call). */
export function turnIndex(request: SeenRequest): number {
  if (request.api === "openai-responses") {
    const input = request.body.input;
    return Array.isArray(input) ? input.filter((i) => i.type === "function_call").length : 0;
  }
  const messages = request.body.messages as Array<{ role: string }>;
  return messages.filter((m) => m.role === "assistant").length;
}
