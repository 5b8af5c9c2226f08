// Classifies model-call failures: what is retried, and what is infrastructure (never counted against
// the agent) versus the agent's own outcome. Works on SDK errors and on raw HTTP responses (relay).
import { type FailureKind, type TrialError, trialError } from "../record/index.ts";
import { SandboxUnavailableError } from "../sandbox/index.ts";

/** A model call's failure: its kind in the taxonomy, and whether the call itself is worth retrying. */
export interface FailureClass {
  kind: FailureKind;
  /** Retried by the call's own retry loop (withRetry); engine retries follow the taxonomy. */
  retryable: boolean;
  status?: number;
  /** From retry-after / retry-after-ms, when the provider sent one. */
  retryAfterMs?: number;
}

/** The SDKs' connection error classes (both SDKs name them alike); matched by name so this module
 * does not load the SDKs, which cost seconds at start-up for commands that never call a model. */
const CONNECTION_ERRORS = new Set(["APIConnectionError", "APIConnectionTimeoutError"]);

const CONTEXT_OVERFLOW =
  /context.{0,20}(length|window|limit)|prompt is too long|maximum context|too many tokens|input.{0,20}too long/i;

/** Reads retry-after-ms (milliseconds) or retry-after (seconds or an HTTP date). */
export function retryAfterMs(headers: { get(name: string): string | null } | undefined): number | undefined {
  const ms = Number(headers?.get("retry-after-ms"));
  if (Number.isFinite(ms) && ms > 0) return ms;
  const value = headers?.get("retry-after");
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.max(0, date - Date.now()) : undefined;
}

/** Classifies an HTTP status (with the error text for 400s that mean a full context). */
export function classifyStatus(status: number, message = ""): FailureClass {
  if (status === 429) return { kind: "rate-limit", retryable: true, status };
  if (status >= 500 || status === 408 || status === 409)
    return { kind: "provider-outage", retryable: true, status };
  if (status === 401 || status === 403) return { kind: "auth", retryable: false, status };
  if ((status === 400 || status === 413) && CONTEXT_OVERFLOW.test(message))
    return { kind: "context-overflow", retryable: false, status };
  return { kind: "provider-rejected", retryable: false, status };
}

function isAbort(err: unknown): boolean {
  const name = (err as { name?: string } | null)?.name ?? "";
  return name === "AbortError" || name === "APIUserAbortError";
}

/** Classifies anything thrown while calling a model or driving a sandbox. */
export function classifyError(err: unknown): FailureClass {
  if (err instanceof SandboxUnavailableError) return { kind: "sandbox", retryable: false };
  if (isAbort(err)) return { kind: "cancelled", retryable: false };
  const e = err as { status?: unknown; name?: string; message?: string; headers?: unknown } | null;
  if (typeof e?.status === "number") {
    const base = classifyStatus(e.status, e.message ?? "");
    const headers = e.headers as { get(name: string): string | null } | undefined;
    const after = typeof headers?.get === "function" ? retryAfterMs(headers) : undefined;
    return after === undefined ? base : { ...base, retryAfterMs: after };
  }
  const code = (err as { code?: string; cause?: { code?: string } } | null)?.cause?.code;
  if (
    CONNECTION_ERRORS.has((err as object | null)?.constructor?.name ?? "") ||
    /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|ENOTFOUND|EAI_AGAIN|socket hang up|fetch failed/.test(
      `${code ?? ""} ${e?.message ?? ""}`,
    )
  ) {
    return { kind: "provider-unreachable", retryable: true };
  }
  return { kind: "internal", retryable: false };
}

/** A failure after classification and retries: becomes AgentResult.error. */
export class ModelCallError extends Error {
  override name = "ModelCallError";
  constructor(
    readonly failure: FailureClass,
    message: string,
    readonly attempts: number,
    cause?: unknown,
  ) {
    super(message, { cause });
  }

  toTrialError(): TrialError {
    return trialError(this.failure.kind, this.message);
  }
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Anything thrown by a model call or a unit's own code, as an error of the closed taxonomy: a
 * ModelCallError keeps its classification, a provider's or sandbox's error is classified by status
 * and cause, and whatever is left is kgate's own bug (`internal`, with its stack).
 */
export function asTrialError(err: unknown): TrialError {
  if (err instanceof ModelCallError) return err.toTrialError();
  const { kind } = classifyError(err);
  const message = errorMessage(err).slice(0, 2000);
  return trialError(kind, message, kind === "internal" && err instanceof Error ? err.stack : undefined);
}
