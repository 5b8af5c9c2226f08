// Readiness ping: one cheap models-list call through the provider's own SDK, short timeout, no
// retries, so `kgate agents` says `ready` only when the endpoint really answers, and names the URL when not.
import type { ResolvedAgentConfig } from "../load-config.ts";
import { describeConnectionError } from "./connection.ts";

/** Long enough for a distant API, short enough that a dead endpoint is reported at once. */
export const PING_TIMEOUT_MS = 5000;

export type PingResult =
  /** The endpoint answered the models list (or answered at all: 404/405 from a server without one). */
  | { state: "answered"; url: string; status: number; ms: number }
  /** It answered, but refused the key (401/403). */
  | { state: "key-refused"; url: string; status: number; ms: number; message: string }
  /** It answered with a server error (5xx), or nothing: refused, reset, unknown host, timeout. */
  | { state: "unreachable"; url: string; status: number | null; ms: number; message: string };

/** Where the models list lives for a configuration: `<baseUrl>/v1/models` (Anthropic), `<baseUrl>/models`. */
export function modelsUrl(config: Pick<ResolvedAgentConfig, "provider" | "baseUrl">): string {
  return config.provider === "anthropic" ? `${config.baseUrl}/v1/models` : `${config.baseUrl}/models`;
}

type ListModels = () => Promise<unknown>;

async function modelsLister(
  config: Pick<ResolvedAgentConfig, "provider" | "baseUrl">,
  apiKey: string | null,
  timeout: number,
): Promise<ListModels> {
  const options = { apiKey: apiKey ?? "no-key", baseURL: config.baseUrl, maxRetries: 0, timeout };
  if (config.provider === "anthropic") {
    const { default: Anthropic } = await import("@anthropic-ai/sdk");
    const client = new Anthropic(options);
    return () => client.models.list({ limit: 1 });
  }
  const { default: OpenAI } = await import("openai");
  const client = new OpenAI(options);
  return () => client.models.list();
}

/** Pings a configuration's endpoint once; never throws. */
export async function pingEndpoint(
  config: Pick<ResolvedAgentConfig, "provider" | "baseUrl">,
  apiKey: string | null,
  timeoutMs: number = PING_TIMEOUT_MS,
): Promise<PingResult> {
  const url = modelsUrl(config);
  const list = await modelsLister(config, apiKey, timeoutMs);
  const started = Date.now();
  const ms = () => Date.now() - started;
  try {
    await list();
    return { state: "answered", url, status: 200, ms: ms() };
  } catch (err) {
    const status = (err as { status?: unknown }).status;
    if (typeof status !== "number")
      return { state: "unreachable", url, status: null, ms: ms(), message: describeConnectionError(err) };
    if (status === 401 || status === 403) {
      return { state: "key-refused", url, status, ms: ms(), message: `HTTP ${status}` };
    }
    if (status >= 500) return { state: "unreachable", url, status, ms: ms(), message: `HTTP ${status}` };
    return { state: "answered", url, status, ms: ms() };
  }
}
