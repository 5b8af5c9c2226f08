// The headers of an upstream request, built from an allow-list: what the API reads (Anthropic's
// `anthropic-version`; the configured `anthropic-beta` values, OpenAI organisation and project) and
// what names the client to the provider's logs (`user-agent`, `accept`, the SDKs' `x-stainless-*`),
// each value checked; the real key put in. Everything else a harness sends is dropped: read from
// @anthropic-ai/sdk and openai (x-stainless-*, anthropic-version, anthropic-beta), Claude Code
// (x-app, x-claude-code-session-id, anthropic-dangerous-direct-browser-access), Codex (originator,
// session_id, version) and OpenCode (@ai-sdk's user-agent), none of which the API needs; a header the
// relay's own HTTP client refuses (`expect`, `upgrade`, `te`, hop-by-hop) can never reach it.
import type { IncomingMessage } from "node:http";
import type { ProviderName } from "../config.ts";

/** What the configuration puts into every upstream request. */
export interface HeaderPolicy {
  provider: ProviderName;
  apiKey: string | null;
  /** Betas passed on from a request's `anthropic-beta` (none when unset). */
  anthropicBetas?: readonly string[];
  openaiOrganization?: string;
  openaiProject?: string;
}

/** Client headers passed on (by lower-case name) and the values each may have. */
const PASSED: ReadonlyMap<string, RegExp> = new Map([
  ["accept", /^[\w*/+.,;= -]{1,200}$/],
  ["user-agent", /^[\x20-\x7e]{1,256}$/],
  ["x-stainless-lang", /^[\w.-]{1,64}$/],
  ["x-stainless-package-version", /^[\w.+-]{1,64}$/],
  ["x-stainless-os", /^[\w. -]{1,64}$/],
  ["x-stainless-arch", /^[\w.-]{1,64}$/],
  ["x-stainless-runtime", /^[\w.-]{1,64}$/],
  ["x-stainless-runtime-version", /^[\w.+-]{1,64}$/],
  ["x-stainless-retry-count", /^\d{1,3}$/],
  ["x-stainless-timeout", /^\d{1,7}$/],
  ["x-stainless-helper-method", /^[\w.-]{1,64}$/],
  ["x-stainless-helper", /^[\w., -]{1,128}$/],
]);

/** Anthropic's API version: a date (2023-06-01); the API refuses a request without one. */
const ANTHROPIC_VERSION = /^\d{4}-\d{2}-\d{2}$/;

const single = (value: string | string[] | undefined): string | undefined =>
  Array.isArray(value) ? value[0] : value;

/** The upstream headers of a client request under `policy`. */
export function upstreamHeaders(req: IncomingMessage, policy: HeaderPolicy): Headers {
  const headers = new Headers();
  for (const [name, pattern] of PASSED) {
    const value = single(req.headers[name]);
    if (value !== undefined && pattern.test(value)) headers.set(name, value);
  }
  headers.set("content-type", "application/json");
  headers.set("accept-encoding", "identity");
  if (policy.provider === "anthropic") {
    const version = single(req.headers["anthropic-version"]);
    headers.set("anthropic-version", version && ANTHROPIC_VERSION.test(version) ? version : "2023-06-01");
    const allowed = new Set(policy.anthropicBetas ?? []);
    const asked = String(req.headers["anthropic-beta"] ?? "")
      .split(",")
      .map((b) => b.trim())
      .filter((b) => allowed.has(b));
    if (asked.length > 0) headers.set("anthropic-beta", [...new Set(asked)].join(","));
  }
  if (policy.openaiOrganization) headers.set("openai-organization", policy.openaiOrganization);
  if (policy.openaiProject) headers.set("openai-project", policy.openaiProject);
  if (policy.apiKey !== null) {
    if (policy.provider === "anthropic") headers.set("x-api-key", policy.apiKey);
    else headers.set("authorization", `Bearer ${policy.apiKey}`);
  }
  return headers;
}
