// Which requests the relay forwards at all: the model endpoints of the configured provider, each with
// the one method it is used with and the query parameters it takes (the headers: headers.ts).
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

export const ROUTES: ReadonlyMap<string, Route> = new Map(
  Object.entries({
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
  } satisfies Record<string, Route>),
);

/** Why the request may not be forwarded at all: the status, the refusal's kind and its message. */
export interface RouteRefusal {
  status: 404 | 405 | 400;
  kind: "path" | "method" | "query";
  message: string;
}

/** The route of a request, or why it is refused. */
export function routeOf(provider: ProviderName, method: string, url: URL): Route | RouteRefusal {
  const route = ROUTES.get(url.pathname);
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
