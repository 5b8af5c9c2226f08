// Which requests the relay forwards at all: the model endpoints of the configured provider, each with
// the one method it is used with and the query parameters it takes, and the headers passed upstream
// (the client's auth, hop-by-hop and identity headers dropped; the real key, the configured
// organisation / project and only the configured Anthropic betas put in).
import type { IncomingMessage } from "node:http";
import type { ProviderName } from "../config.ts";
import type { WireApi } from "./wire.ts";

export interface Route {
  /** The wire format of a model call (counted, capped, narrated); null for the other endpoints. */
  api: WireApi | null;
  /** The format its body is checked as (count_tokens: a Messages body); null: it takes no body. */
  body: WireApi | null;
  method: "GET" | "POST";
  providers: readonly ProviderName[];
  /** Query parameters passed on (the Anthropic SDK's `?beta=true`, the models list's paging). */
  query: ReadonlySet<string>;
}

const OPENAI: readonly ProviderName[] = ["openai", "openai-compatible"];
const ALL: readonly ProviderName[] = ["anthropic", ...OPENAI];
const NONE: ReadonlySet<string> = new Set();
const BETA: ReadonlySet<string> = new Set(["beta"]);

export const ROUTES: Record<string, Route> = {
  "/v1/messages": {
    api: "anthropic",
    body: "anthropic",
    method: "POST",
    providers: ["anthropic"],
    query: BETA,
  },
  "/v1/messages/count_tokens": {
    api: null,
    body: "anthropic",
    method: "POST",
    providers: ["anthropic"],
    query: BETA,
  },
  "/v1/chat/completions": {
    api: "openai-chat",
    body: "openai-chat",
    method: "POST",
    providers: OPENAI,
    query: NONE,
  },
  "/v1/responses": {
    api: "openai-responses",
    body: "openai-responses",
    method: "POST",
    providers: OPENAI,
    query: NONE,
  },
  "/v1/models": {
    api: null,
    body: null,
    method: "GET",
    providers: ALL,
    query: new Set(["limit", "after_id", "before_id", "after"]),
  },
};

/** Why the request may not be forwarded at all: the status, the refusal's kind and its message. */
export interface RouteRefusal {
  status: 404 | 405 | 400;
  kind: "path" | "method" | "query";
  message: string;
}

/** The route of a request, or why it is refused. */
export function routeOf(provider: ProviderName, method: string, url: URL): Route | RouteRefusal {
  const route = ROUTES[url.pathname];
  if (!route?.providers.includes(provider)) {
    return {
      status: 404,
      kind: "path",
      message: `${method} ${url.pathname} is not a model endpoint this relay forwards`,
    };
  }
  if (method !== route.method) {
    return {
      status: 405,
      kind: "method",
      message: `${url.pathname} takes ${route.method} only, not ${method}`,
    };
  }
  for (const key of url.searchParams.keys()) {
    if (!route.query.has(key))
      return { status: 400, kind: "query", message: `query parameter "${key}" of ${url.pathname}` };
  }
  return route;
}

/** Headers never passed on: hop-by-hop, the client's auth, and the identity the configuration sets. */
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
  "anthropic-beta",
  "openai-organization",
  "openai-project",
]);

/** What the configuration puts into every upstream request. */
export interface HeaderPolicy {
  provider: ProviderName;
  apiKey: string | null;
  /** Betas passed on from a request's `anthropic-beta` (none when unset). */
  anthropicBetas?: readonly string[];
  openaiOrganization?: string;
  openaiProject?: string;
}

/** The upstream headers of a client request under `policy`. */
export function upstreamHeaders(req: IncomingMessage, policy: HeaderPolicy): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (DROP_HEADERS.has(name) || value === undefined) continue;
    headers.set(name, Array.isArray(value) ? value.join(", ") : value);
  }
  headers.set("accept-encoding", "identity");
  const allowed = new Set(policy.anthropicBetas ?? []);
  const asked = String(req.headers["anthropic-beta"] ?? "")
    .split(",")
    .map((b) => b.trim())
    .filter((b) => allowed.has(b));
  if (asked.length > 0) headers.set("anthropic-beta", [...new Set(asked)].join(","));
  if (policy.openaiOrganization) headers.set("openai-organization", policy.openaiOrganization);
  if (policy.openaiProject) headers.set("openai-project", policy.openaiProject);
  if (policy.apiKey !== null) {
    if (policy.provider === "anthropic") headers.set("x-api-key", policy.apiKey);
    else headers.set("authorization", `Bearer ${policy.apiKey}`);
  }
  return headers;
}

/** A refusal's body, in the provider's own error format (so that the harness's SDK reads it). */
export function refusalBody(provider: ProviderName, status: number, message: string): string {
  if (provider === "anthropic") {
    return JSON.stringify({
      type: "error",
      error: { type: status === 401 ? "authentication_error" : "invalid_request_error", message },
    });
  }
  return JSON.stringify({ error: { message, type: "invalid_request_error", code: null } });
}
