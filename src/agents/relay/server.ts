// The model relay: an HTTP proxy on a host unix socket (in a folder only this user can enter), which
// sandboxes with no network reach through the forwarder's channel over a streaming exec. It maps a trial's secret token to its session, injects the real API key (which never enters the
// container), forwards only model endpoints to the configured provider, retries 429/5xx/connection
// failures with back-off, enforces the token budget and turn limit, and counts tokens.
import { rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import path from "node:path";
import { trialError } from "../../model/index.ts";
import { ownedTempDir } from "../../sandbox/folders.ts";
import { type ProviderName, RELAY_DEFAULTS, type RetryPolicy } from "../config.ts";
import { classifyError, classifyStatus, errorMessage, ModelCallError, retryAfterMs } from "../errors.ts";
import { retryLine, retryNote, withRetry } from "../retry.ts";
import { readBody } from "./body.ts";
import { egressProblem, forceModelAndCap, requestedMaxTokens } from "./guard.ts";
import {
  DEFAULT_MAX_IN_FLIGHT,
  inputTokenBound,
  RelaySession,
  type RelaySessionOptions,
  type Reservation,
} from "./session.ts";
import {
  replyOfJson,
  StreamAccumulator,
  systemOf,
  toolResultsOf,
  userTextsOf,
  type WireApi,
} from "./wire.ts";

export interface RelayOptions {
  provider: ProviderName;
  /** The provider's API root, as in the configuration (https://api.anthropic.com, .../v1). */
  upstream: string;
  apiKey: string | null;
  retry: RetryPolicy;
  /** Progress lines (retries, refusals) for the operator; never contains the key. */
  log?: (line: string) => void;
  random?: () => number;
  /** Largest request body accepted, in bytes (checked before parsing). */
  maxBodyBytes?: number;
  /** Connections the relay socket keeps open at once, over all trials. */
  maxConnections?: number;
}

export const DEFAULT_MAX_BODY_BYTES = RELAY_DEFAULTS.maxBodyBytes;
export const DEFAULT_MAX_CONNECTIONS = RELAY_DEFAULTS.maxConnections;

/** The socket's name in its folder, and the loopback port the forwarder serves in the container. */
export const RELAY_SOCKET_NAME = "relay.sock";
export const RELAY_PORT = 4100;

const ROUTES: Record<string, { api: WireApi | null; providers: ProviderName[] }> = {
  "/v1/messages": { api: "anthropic", providers: ["anthropic"] },
  "/v1/messages/count_tokens": { api: null, providers: ["anthropic"] },
  "/v1/chat/completions": { api: "openai-chat", providers: ["openai", "openai-compatible"] },
  "/v1/responses": { api: "openai-responses", providers: ["openai", "openai-compatible"] },
  "/v1/models": { api: null, providers: ["anthropic", "openai", "openai-compatible"] },
};

const DROP_HEADERS = new Set([
  "host",
  "connection",
  "content-length",
  "transfer-encoding",
  "accept-encoding",
  "authorization",
  "x-api-key",
  "keep-alive",
  "proxy-authorization",
]);

class UpstreamStatusError extends Error {
  constructor(
    readonly status: number,
    readonly headers: Headers,
    readonly body: string,
  ) {
    super(`upstream answered ${status}: ${body.slice(0, 300)}`);
  }
}

function errorJson(provider: ProviderName, status: number, message: string): string {
  if (provider === "anthropic") {
    return JSON.stringify({
      type: "error",
      error: { type: status === 401 ? "authentication_error" : "invalid_request_error", message },
    });
  }
  return JSON.stringify({ error: { message, type: "invalid_request_error", code: null } });
}

/** The request body, or null as soon as it passes maxBytes (declared or streamed). */
export class Relay {
  private readonly sessions = new Map<string, RelaySession>();

  private constructor(
    private readonly options: RelayOptions,
    private readonly server: Server,
    readonly socketDir: string,
  ) {}

  get socketPath(): string {
    return path.join(this.socketDir, RELAY_SOCKET_NAME);
  }

  static async start(options: RelayOptions): Promise<Relay> {
    // The folder's name carries this process, so the reaper removes it if the process is killed.
    const socketDir = ownedTempDir("relay");
    const server = createServer();
    server.maxConnections = options.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
    const relay = new Relay(options, server, socketDir);
    server.on("request", (req, res) => {
      void relay.handle(req, res).catch((err) => {
        if (!res.headersSent) {
          res.writeHead(500, { "content-type": "application/json" });
          res.end(errorJson(options.provider, 500, `kgate relay: ${errorMessage(err)}`));
        } else res.destroy();
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(relay.socketPath, () => resolve());
    });
    return relay;
  }

  openSession(options: RelaySessionOptions): RelaySession {
    const session = new RelaySession(options);
    this.sessions.set(session.token, session);
    return session;
  }

  closeSession(session: RelaySession): void {
    session.close();
    this.sessions.delete(session.token);
  }

  async close(): Promise<void> {
    for (const s of this.sessions.values()) s.close();
    this.sessions.clear();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    rmSync(this.socketDir, { recursive: true, force: true });
  }

  private refuse(res: ServerResponse, status: number, message: string): void {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(errorJson(this.options.provider, status, `kgate relay: ${message}`));
  }

  private upstreamHeaders(req: IncomingMessage): Headers {
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (DROP_HEADERS.has(name) || value === undefined) continue;
      headers.set(name, Array.isArray(value) ? value.join(", ") : value);
    }
    headers.set("accept-encoding", "identity");
    if (this.options.apiKey !== null) {
      if (this.options.provider === "anthropic") headers.set("x-api-key", this.options.apiKey);
      else headers.set("authorization", `Bearer ${this.options.apiKey}`);
    }
    return headers;
  }

  private upstreamUrl(pathname: string, search: string): string {
    const rest = this.options.provider === "anthropic" ? pathname : pathname.replace(/^\/v1/, "");
    return `${this.options.upstream}${rest}${search}`;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://relay");
    const auth = req.headers["x-api-key"] ?? req.headers.authorization;
    const token = (Array.isArray(auth) ? auth[0] : auth)?.replace(/^Bearer\s+/i, "") ?? "";
    const session = this.sessions.get(token);
    if (!session || session.closed) return this.refuse(res, 401, "unknown or closed session");
    const maxInFlight = session.options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
    if (session.inFlight >= maxInFlight) {
      session.options.trajectory.append({ type: "note", kind: "relay-limit", limit: "in-flight" });
      return this.refuse(res, 429, `at most ${maxInFlight} requests of a trial at once`);
    }
    session.inFlight += 1;
    try {
      await this.handleHeld(req, res, url, session);
    } finally {
      session.inFlight -= 1;
    }
  }

  private async handleHeld(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    session: RelaySession,
  ): Promise<void> {
    const route = ROUTES[url.pathname];
    if (!route?.providers.includes(this.options.provider)) {
      session.options.trajectory.append({ type: "note", kind: "relay-refused", path: url.pathname });
      return this.refuse(
        res,
        404,
        `${req.method} ${url.pathname} is not a model endpoint this relay forwards`,
      );
    }
    const maxBody = this.options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    let body = await readBody(req, maxBody);
    if (body === null) {
      session.options.trajectory.append({ type: "note", kind: "relay-limit", limit: "body-size" });
      res.setHeader("connection", "close");
      return this.refuse(res, 413, `request body over ${maxBody} bytes`);
    }
    let json: Record<string, unknown> | null = null;
    const checked = route.api ?? (url.pathname.endsWith("count_tokens") ? "anthropic" : null);
    if (checked && body.length > 0) {
      try {
        json = JSON.parse(body.toString("utf8")) as Record<string, unknown>;
      } catch {
        return this.refuse(res, 400, "request body is not JSON");
      }
    }
    const api = route.api;
    const offersTools = Array.isArray(json?.tools) && json.tools.length > 0;
    const egress = checked && json ? egressProblem(checked, json) : null;
    if (egress) {
      session.options.trajectory.append({ type: "note", kind: "relay-refused", egress });
      this.options.log?.(`relay: refused ${url.pathname}: ${egress}`);
      return this.refuse(
        res,
        400,
        `${egress} refused: only fields that cannot make the provider fetch are forwarded`,
      );
    }
    if (!api) {
      session.otherCalls += 1;
      session.options.trajectory.append({ type: "note", kind: "relay-forwarded", path: url.pathname });
      if (json && session.options.model) {
        json.model = session.options.model;
        body = Buffer.from(JSON.stringify(json));
      }
    }
    let grant: Reservation | null = null;
    if (api && json) {
      const limit = session.refusal(offersTools);
      if (limit) {
        session.limitHit = limit;
        session.options.trajectory.append({ type: "note", kind: "relay-limit", limit });
        this.options.log?.(`relay: refused a model call (${limit})`);
        return this.refuse(
          res,
          400,
          `${limit === "max-turns" ? "turn limit" : "token budget"} of this trial reached`,
        );
      }
      grant = session.reserve(requestedMaxTokens(api, json), inputTokenBound(body.length));
      if (grant === null) {
        session.limitHit = "token-budget";
        session.options.trajectory.append({ type: "note", kind: "relay-limit", limit: "token-budget" });
        return this.refuse(res, 400, "token budget of this trial reached");
      }
      if (offersTools)
        session.recordRequest(systemOf(api, json), userTextsOf(api, json), toolResultsOf(api, json));
      forceModelAndCap(api, json, session.options.model ?? null, grant.outputTokens);
      if (api === "openai-chat" && json.stream === true) {
        json.stream_options = { ...(json.stream_options as object | undefined), include_usage: true };
      }
      body = Buffer.from(JSON.stringify(json));
    }
    try {
      await this.forward(req, res, url, session, { api, body, offersTools, model: json?.model });
    } finally {
      if (grant !== null) session.release(grant);
    }
  }

  private async forward(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    session: RelaySession,
    call: { api: WireApi | null; body: Buffer; offersTools: boolean; model: unknown },
  ): Promise<void> {
    const { api, body, offersTools } = call;
    const started = Date.now();
    // the harness hanging up (or the session closing) abandons the upstream call and its retries
    const hangUp = new AbortController();
    res.on("close", () => {
      if (!res.writableFinished) hangUp.abort(new Error("the harness closed the connection"));
    });
    const signal = AbortSignal.any([session.abort.signal, hangUp.signal]);
    let upstream: Response;
    try {
      upstream = await withRetry(
        async () => {
          const r = await fetch(this.upstreamUrl(url.pathname, url.search), {
            method: req.method,
            headers: this.upstreamHeaders(req),
            body: req.method === "GET" || req.method === "HEAD" ? undefined : new Uint8Array(body),
            signal,
          });
          if (r.status === 429 || r.status >= 500 || r.status === 408) {
            throw new UpstreamStatusError(r.status, r.headers, await r.text());
          }
          return r;
        },
        this.options.retry,
        {
          signal,
          random: this.options.random,
          classify: (err) =>
            err instanceof UpstreamStatusError
              ? { ...classifyStatus(err.status, err.body), retryAfterMs: retryAfterMs(err.headers) }
              : classifyError(err),
          onRetry: (n) => {
            session.options.trajectory.append({ ...retryNote(n), source: "relay" });
            this.options.log?.(`relay: ${retryLine(n)}`);
          },
        },
      );
    } catch (err) {
      if (signal.aborted) return this.refuse(res, 503, "session closed");
      const failure =
        err instanceof ModelCallError ? err.toTrialError() : trialError("relay", errorMessage(err));
      const cause = (err as { cause?: unknown }).cause;
      const status = err instanceof ModelCallError ? (err.failure.status ?? null) : null;
      session.recordFailure(failure, status);
      if (cause instanceof UpstreamStatusError || status !== null) {
        const last = cause instanceof UpstreamStatusError ? cause : null;
        res.writeHead(status ?? 502, { "content-type": "application/json" });
        return void res.end(last?.body ?? errorJson(this.options.provider, status ?? 502, failure.message));
      }
      return this.refuse(res, 502, `provider unreachable: ${failure.message}`);
    }
    await this.pipeReply(upstream, res, session, api, { started, offersTools, model: call.model });
  }

  private async pipeReply(
    upstream: Response,
    res: ServerResponse,
    session: RelaySession,
    api: WireApi | null,
    meta: { started: number; offersTools: boolean; model: unknown },
  ): Promise<void> {
    const headers: Record<string, string> = {};
    upstream.headers.forEach((value, name) => {
      if (!["content-length", "content-encoding", "transfer-encoding", "connection"].includes(name))
        headers[name] = value;
    });
    res.writeHead(upstream.status, headers);
    const sse = (upstream.headers.get("content-type") ?? "").includes("text/event-stream");
    const stream = api && sse ? new StreamAccumulator(api) : null;
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of upstream.body ?? []) {
        const buf = Buffer.from(chunk as Uint8Array);
        res.write(buf);
        if (stream) stream.push(buf);
        else if (api) chunks.push(buf);
      }
    } catch (err) {
      // cut off mid-stream: the provider bills what it streamed, so count that much
      const partial = stream?.result();
      if (partial) {
        session.recordReply(partial, {
          model: typeof meta.model === "string" ? meta.model : null,
          durationMs: Date.now() - meta.started,
          offersTools: meta.offersTools,
        });
      }
      throw err;
    }
    res.end();
    if (!api) return;
    const text = Buffer.concat(chunks).toString("utf8");
    if (upstream.status >= 400) {
      const failure = classifyStatus(upstream.status, text);
      session.recordFailure(trialError(failure.kind, text.slice(0, 500)), upstream.status);
      return;
    }
    let reply = stream?.result();
    if (!reply) {
      try {
        reply = replyOfJson(api, JSON.parse(text) as Record<string, unknown>);
      } catch {
        return session.recordFailure(trialError("provider-rejected", "reply is not JSON"), upstream.status);
      }
    }
    session.recordReply(reply, {
      model: typeof meta.model === "string" ? meta.model : null,
      durationMs: Date.now() - meta.started,
      offersTools: meta.offersTools,
    });
  }
}
