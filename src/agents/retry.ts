// Bounded retries with exponential back-off and jitter for retryable failures (429, 5xx, connection).
import { type AdaptiveLimit, failedOutcome } from "./adaptive-limit.ts";
import type { RetryPolicy } from "./config.ts";
import { classifyError, errorMessage, type FailureClass, ModelCallError } from "./errors.ts";

export interface RetryNotice {
  /** 1 for the first retry. */
  retry: number;
  of: number;
  delayMs: number;
  failure: FailureClass;
  message: string;
}

/** The trajectory note of a retry (callers add what is theirs: the message, the source). */
export function retryNote(n: RetryNotice) {
  return {
    type: "note" as const,
    kind: "retry",
    retry: n.retry,
    of: n.of,
    delayMs: n.delayMs,
    failure: n.failure.kind,
    status: n.failure.status ?? null,
  };
}

/** A retry in one log line. */
export function retryLine(n: RetryNotice): string {
  return `${n.failure.kind} (${n.failure.status ?? "no status"}), retry ${n.retry}/${n.of} in ${n.delayMs} ms`;
}

export interface RetryOptions {
  signal?: AbortSignal;
  /** Called before each wait: log it (trajectory note, stderr). */
  onRetry?: (notice: RetryNotice) => void;
  /** In [0, 1); injectable so tests can pin the jitter. */
  random?: () => number;
  classify?: (err: unknown) => FailureClass;
  /** The provider's adaptive concurrency: each attempt holds one of its slots and reports how it ended. */
  limit?: AdaptiveLimit;
}

/** Delay before retry number `retry` (1-based): "equal jitter" over min(max, base * 2^(retry-1)). */
export function backoffDelay(policy: RetryPolicy, retry: number, random: () => number, hintMs?: number) {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  const jittered = ceiling / 2 + random() * (ceiling / 2);
  const delay = hintMs === undefined ? jittered : Math.max(jittered, hintMs);
  return Math.round(Math.min(policy.maxDelayMs, delay));
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Runs `fn` until it succeeds, fails with a non-retryable error, or the retries are spent; then
 * throws a ModelCallError carrying the classification. Aborts propagate unchanged.
 */
export async function withRetry<T>(
  fn: (attempt: number) => Promise<T>,
  policy: RetryPolicy,
  options: RetryOptions = {},
): Promise<T> {
  const classify = options.classify ?? classifyError;
  const random = options.random ?? Math.random;
  for (let attempt = 1; ; attempt++) {
    const release = await options.limit?.acquire(options.signal);
    try {
      const result = await fn(attempt);
      release?.({ overloaded: false });
      return result;
    } catch (err) {
      const failure = classify(err);
      release?.(failedOutcome(failure));
      if (options.signal?.aborted) throw err;
      if (failure.kind === "cancelled") throw err;
      const retry = attempt;
      if (!failure.retryable || retry > policy.maxRetries) {
        const spent = failure.retryable ? ` (after ${attempt} attempts)` : "";
        throw new ModelCallError(failure, `${errorMessage(err)}${spent}`, attempt, err);
      }
      const delayMs = backoffDelay(policy, retry, random, failure.retryAfterMs);
      options.onRetry?.({ retry, of: policy.maxRetries, delayMs, failure, message: errorMessage(err) });
      await sleep(delayMs, options.signal);
    }
  }
}
