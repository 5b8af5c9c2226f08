// The model relay: an HTTP proxy on a host unix socket (in a folder only this user can enter), which
// sandboxes with no network reach through the forwarder's channel over a streaming exec. It maps a
// trial's secret token to its session, injects the real API key (which never enters the container),
// forwards only the model endpoints of the configured provider (routes.ts) with allow-listed headers
// (headers.ts) and bodies that reference nothing outside themselves (guard.ts), rewrites model calls
// (rewrite.ts), retries and cuts stalled upstream calls under the provider's adaptive limit
// (upstream.ts), bounds how long a request may take to arrive, enforces the token budget and turn
// limit, and charges each call (reply.ts).
import { rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import path from "node:path";
import { ownedTempDir } from "../../common/index.ts";
import { type TrajectoryEvent, trialError } from "../../record/index.ts";
import type { AdaptiveLimit } from "../adaptive-limit.ts";
import { type ProviderName, RELAY_DEFAULTS, type RetryPolicy } from "../config.ts";
import { errorMessage, ModelCallError } from "../errors.ts";
import { inputTokenBound, type Reservation, type Settlement } from "../ledger.ts";
import { retryLine, retryNote } from "../retry.ts";
import { checkedBody, readBody } from "./body.ts";
import { type HeaderPolicy, upstreamHeaders } from "./headers.ts";
import { unpricedProblem } from "./priced.ts";
import { type ForwardedCall, pipeReply } from "./reply.ts";
import { requestedMaxTokens, rewriteModelCall } from "./rewrite.ts";
import { refusalBody, routeOf } from "./routes.ts";
import { DEFAULT_MAX_IN_FLIGHT, RelaySession, type RelaySessionOptions } from "./session.ts";
import {
  callUpstream,
  mayHaveBeenBilled,
  RequestFaultError,
  type UpstreamAnswer,
  UpstreamStallError,
  UpstreamStatusError,
} from "./upstream.ts";
import { systemOf, toolResultsOf, userTextsOf, type WireApi } from "./wire.ts";

export interface RelayOptions extends Omit<HeaderPolicy, "provider" | "apiKey"> {
  provider: ProviderName;
  /** The provider's API root, as in the configuration (https://api.anthropic.com, .../v1). */
  upstream: string;
  apiKey: string | null;
  retry: RetryPolicy;
  /**
   * The provider's adaptive concurrency in the session (adaptive-limit.ts), shared with its other
   * agents; none: relayed calls are not limited.
   */
  limit?: AdaptiveLimit;
  /** Progress lines (retries, refusals) for the operator; never contains the key. */
  log?: (line: string) => void;
  random?: () => number;
  /** Largest request body accepted, in bytes (checked before parsing). */
  maxBodyBytes?: number;
  /**
   * Connections the relay socket keeps open at once, over all trials; as each request in flight holds
   * one upstream connection, a trial holds at most its share of them (see inFlightCap).
   */
  maxConnections?: number;
  /** An upstream call that sends nothing for this long is cut (the provider's failure). */
  upstreamTimeoutMs?: number;
  /**
   * A request's head and body must arrive within this (else 408 and the connection closed), so that a
   * body sent a byte at a time holds no in-flight slot for long.
   */
  requestTimeoutMs?: number;
}

export const DEFAULT_MAX_BODY_BYTES = RELAY_DEFAULTS.maxBodyBytes;
export const DEFAULT_MAX_CONNECTIONS = RELAY_DEFAULTS.maxConnections;
/** The relay socket's accept queue (see Relay.start). */
const RELAY_BACKLOG = 4096;
export const DEFAULT_UPSTREAM_TIMEOUT_MS = RELAY_DEFAULTS.upstreamTimeoutSec * 1000;
export const DEFAULT_REQUEST_TIMEOUT_MS = RELAY_DEFAULTS.requestTimeoutSec * 1000;

/** The socket's name in its folder, and the loopback port the forwarder serves in the container. */
export const RELAY_SOCKET_NAME = "relay.sock";
export const RELAY_PORT = 4100;

type Note = Omit<TrajectoryEvent, "at">;

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
    const deadline = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    // Node answers 408 and closes a connection whose request head and body took longer than this,
    // checked every connectionsCheckingInterval; a reply being streamed back is not bounded by it
    const server = createServer({
      requestTimeout: deadline,
      headersTimeout: deadline,
      connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(deadline / 4))),
    });
    server.maxConnections = options.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
    const relay = new Relay(options, server, socketDir);
    server.on("request", (req, res) => {
      // one request per connection: a connection left idle is one the relay would close on its own
      // clock (Node's 5 s keep-alive) while the harness may be sending on it through the forwarder's
      // channel, or blocked in a tool call; that request was lost ("fetch failed: other side closed")
      res.setHeader("connection", "close");
      void relay.handle(req, res).catch((err) => {
        if (!res.headersSent) {
          res.writeHead(500, { "content-type": "application/json" });
          res.end(refusalBody(options.provider, 500, `kgate relay: ${errorMessage(err)}`));
        } else res.destroy();
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      // a unix socket's connect fails at once (EAGAIN) when the accept queue is full, where TCP's
      // waits: a burst of channel streams (an agent's thousands of connections, each opened and
      // closed by the channel) filled Node's default 511 and failed the harness's own connection;
      // the kernel caps this at net.core.somaxconn (4096 by default since Linux 5.4)
      server.listen({ path: relay.socketPath, backlog: RELAY_BACKLOG }, () => resolve());
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
    res.end(refusalBody(this.options.provider, status, `kgate relay: ${message}`));
  }

  /**
   * A refusal of the relay's own to a session's request: the latest answer the harness got is now the
   * relay's (the agent's doing), not an earlier failure of the provider.
   */
  private refuseInSession(res: ServerResponse, session: RelaySession, status: number, message: string): void {
    session.infraFailure = null;
    this.refuse(res, status, message);
  }

  /** A refusal counted in the session's notes (one event per kind and minute), then answered. */
  private refuseCounted(
    res: ServerResponse,
    session: RelaySession,
    refusal: { status: number; kind: string; note: Note; message: string },
  ): void {
    if (session.notes.count(refusal.kind, refusal.note)) {
      this.options.log?.(`relay: refused a request (${refusal.message})`);
    }
    this.refuseInSession(res, session, refusal.status, refusal.message);
  }

  private limitRefusal(
    res: ServerResponse,
    session: RelaySession,
    limit: string,
    status: number,
    message: string,
  ) {
    this.refuseCounted(res, session, {
      status,
      kind: `relay-limit:${limit}`,
      note: { type: "note", kind: "relay-limit", limit },
      message,
    });
  }

  /**
   * Requests of `session` the relay holds at once: maxInFlight, and at most the trial's share of the
   * relay's connections (each request in flight holds one upstream connection).
   */
  private inFlightCap(session: RelaySession): number {
    const connections = this.options.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
    const share = Math.max(1, Math.floor(connections / Math.max(1, this.sessions.size)));
    return Math.min(session.options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT, share);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://relay");
    const auth = req.headers["x-api-key"] ?? req.headers.authorization;
    const token = (Array.isArray(auth) ? auth[0] : auth)?.replace(/^Bearer\s+/i, "") ?? "";
    const session = this.sessions.get(token);
    if (!session || session.closed) return this.refuse(res, 401, "unknown or closed session");
    const cap = this.inFlightCap(session);
    if (session.inFlight >= cap) {
      return this.limitRefusal(
        res,
        session,
        "in-flight",
        429,
        `at most ${cap} requests of this trial at once`,
      );
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
    const method = req.method ?? "GET";
    const route = routeOf(this.options.provider, method, url);
    if (!("api" in route)) {
      return this.refuseCounted(res, session, {
        status: route.status,
        kind: `relay-refused:${route.kind}`,
        note: { type: "note", kind: "relay-refused", path: url.pathname, method, reason: route.kind },
        message: route.message,
      });
    }
    const maxBody = this.options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    const body = await readBody(req, maxBody);
    if (body === null) {
      return this.limitRefusal(res, session, "body-size", 413, `request body over ${maxBody} bytes`);
    }
    const checked = checkedBody(route, url, body);
    if ("problem" in checked) {
      return this.refuseCounted(res, session, {
        status: 400,
        kind: "relay-refused:body",
        note: { type: "note", kind: "relay-refused", path: url.pathname, egress: checked.problem },
        message: checked.message,
      });
    }
    const json = checked.json;
    if (route.api === null || json === null) {
      session.otherCalls += 1;
      session.notes.count(`relay-forwarded:${url.pathname}`, {
        type: "note",
        kind: "relay-forwarded",
        path: url.pathname,
      });
      if (json && session.options.model) json.model = session.options.model;
      const out = json ? Buffer.from(JSON.stringify(json)) : null;
      await this.forward(req, res, url, session, {
        api: null,
        body: out,
        offersTools: false,
        model: json?.model,
      });
      return;
    }
    await this.modelCall(req, res, url, session, { api: route.api, json, bytes: body.length });
  }

  private async modelCall(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    session: RelaySession,
    call: { api: WireApi; json: Record<string, unknown>; bytes: number },
  ): Promise<void> {
    const { api, json } = call;
    const offersTools = Array.isArray(json.tools) && json.tools.length > 0;
    if (session.rejectedTooOften) {
      const message = `the provider refused ${session.rejectedCalls} requests of this trial: no more are forwarded`;
      return this.limitRefusal(res, session, "rejected-calls", 429, message);
    }
    const limit = session.refusal(offersTools);
    if (limit) {
      session.limitHit = limit;
      const what = limit === "max-turns" ? "turn limit" : "token budget";
      return this.limitRefusal(res, session, limit, 400, `${what} of this trial reached`);
    }
    const unpriced = unpricedProblem(api, json, session.options.pricing);
    if (unpriced) {
      return this.refuseCounted(res, session, {
        status: 400,
        kind: "relay-refused:unpriced",
        note: { type: "note", kind: "relay-refused", reason: "unpriced", problem: unpriced },
        message: `${unpriced} refused: kgate charges only what it can price`,
      });
    }
    const grant: Reservation | null = session.reserve(
      requestedMaxTokens(api, json),
      inputTokenBound(call.bytes),
    );
    if (grant === null) {
      session.limitHit = "token-budget";
      return this.limitRefusal(res, session, "token-budget", 400, "token budget of this trial reached");
    }
    // a call that ends in any way not settled below (kgate's own error) keeps its reservation
    let settlement: Settlement = "reservation";
    try {
      if (offersTools)
        session.recordRequest(systemOf(api, json), userTextsOf(api, json), toolResultsOf(api, json));
      rewriteModelCall(api, json, session.options.model ?? null, grant.outputTokens);
      if (api === "openai-chat" && json.stream === true) {
        json.stream_options = { ...(json.stream_options as object | undefined), include_usage: true };
      }
      const body = Buffer.from(JSON.stringify(json));
      settlement = await this.forward(req, res, url, session, { api, body, offersTools, model: json.model });
    } finally {
      session.settle(grant, settlement);
    }
  }

  /** Forwards a request and passes the answer on; says what the call is charged. */
  private async forward(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    session: RelaySession,
    call: Omit<ForwardedCall, "started"> & { body: Buffer | null },
  ): Promise<Settlement> {
    const started = Date.now();
    // the harness hanging up stops further attempts; the one under way is read to its end for its usage
    const hangUp = new AbortController();
    res.on("close", () => {
      if (!res.writableFinished) hangUp.abort(new Error("the harness closed the connection"));
    });
    let upstream: UpstreamAnswer;
    try {
      upstream = await callUpstream({
        url: this.upstreamUrl(url),
        method: req.method ?? "GET",
        headers: upstreamHeaders(req, this.options),
        body: call.body,
        signal: AbortSignal.any([session.abort.signal, hangUp.signal]),
        attemptSignal: session.abort.signal,
        timeoutMs: this.options.upstreamTimeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS,
        retry: this.options.retry,
        random: this.options.random,
        limit: this.options.limit,
        onRetry: (n) => {
          session.options.trajectory.append({ ...retryNote(n), source: "relay" });
          this.options.log?.(`relay: ${retryLine(n)}`);
        },
      });
    } catch (err) {
      // a harness that hung up between two attempts is simply gone: nothing more was sent
      if (err !== hangUp.signal.reason) this.upstreamFailed(err, res, session);
      return call.api && mayHaveBeenBilled(err) ? "reservation" : "nothing";
    }
    return pipeReply(upstream, res, session, { ...call, started });
  }

  /** The upstream call failed after its retries: recorded, and answered while the harness waits. */
  private upstreamFailed(err: unknown, res: ServerResponse, session: RelaySession): void {
    if (session.abort.signal.aborted) {
      this.refuse(res, 503, "session closed");
      return;
    }
    const waiting = !res.destroyed;
    const failure =
      err instanceof ModelCallError ? err.toTrialError() : trialError("relay", errorMessage(err));
    const cause = (err as { cause?: unknown }).cause;
    if (cause instanceof RequestFaultError) {
      // it never left the host: the request's own fault (the agent's), like a provider's 400
      session.recordRejection(trialError("provider-rejected", cause.message), 400);
      if (waiting) this.refuse(res, 400, cause.message);
      return;
    }
    const status = err instanceof ModelCallError ? (err.failure.status ?? null) : null;
    session.recordUpstreamFailure(failure, status, waiting);
    if (!waiting) return;
    if (cause instanceof UpstreamStatusError) {
      res.writeHead(cause.status, { "content-type": "application/json" });
      res.end(cause.body);
    } else if (cause instanceof UpstreamStallError) this.refuse(res, 504, failure.message);
    else this.refuse(res, 502, `provider unreachable: ${failure.message}`);
  }

  private upstreamUrl(url: URL): string {
    const rest = this.options.provider === "anthropic" ? url.pathname : url.pathname.replace(/^\/v1/, "");
    return `${this.options.upstream}${rest}${url.search}`;
  }
}
