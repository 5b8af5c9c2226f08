// One model call to the provider: retried with back-off on 429 / 5xx / 408 and on connections that
// never opened, and cut when the provider sends nothing for the call's timeout (before its headers or
// between two chunks of its body): a stalled upstream is the provider's failure and frees the
// connection. An attempt that failed after its request may have reached the provider (a reset, a
// stall) is not retried here: the provider may have billed it, so the call keeps its reservation and
// the harness's own retry comes as a new call with a reservation of its own. Each attempt holds a slot
// of the provider's adaptive limit from before its request until its answer ends, or until the call is
// given up (the harness hung up, the session closed): a call the provider holds open then keeps no
// other call of the session from it.

import { type AdaptiveLimit, type CallOutcome, failedOutcome } from "../adaptive-limit.ts";
import type { RetryPolicy } from "../config.ts";
import { classifyError, classifyStatus, type FailureClass, ModelCallError, retryAfterMs } from "../errors.ts";
import { neverConnected } from "../ledger.ts";
import { type RetryNotice, withRetry } from "../retry.ts";

export class UpstreamStatusError extends Error {
  constructor(
    readonly status: number,
    readonly headers: Headers,
    readonly body: string,
  ) {
    super(`upstream answered ${status}: ${body.slice(0, 300)}`);
  }
}

/** The provider sent nothing for the call's timeout. */
export class UpstreamStallError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`the provider sent nothing for ${Math.round(timeoutMs / 1000)} s: the call was cut`);
  }
}

const causeCode = (err: unknown): string =>
  String((err as { cause?: { code?: unknown } } | null)?.cause?.code ?? "");

/**
 * The relay's HTTP client refused to send the request (a header or body it cannot send): it never
 * left the host, so it is the request's fault, never the provider's.
 */
export class RequestFaultError extends Error {}

/** The codes of undici refusing a request before sending it. */
const REQUEST_FAULTS = new Set(["UND_ERR_INVALID_ARG", "UND_ERR_NOT_SUPPORTED"]);

/** The request itself could not be sent (RequestFaultError), or null for any other failure. */
export function requestFault(err: unknown): RequestFaultError | null {
  if (!REQUEST_FAULTS.has(causeCode(err))) return null;
  const cause = (err as { cause?: { message?: unknown } }).cause;
  return new RequestFaultError(`the request could not be sent: ${String(cause?.message ?? "refused")}`);
}

/** Aborts its signal once `ms` pass without a touch(). */
export class StallTimer {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout;

  constructor(private readonly ms: number) {
    this.timer = this.arm();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get fired(): boolean {
    return this.controller.signal.aborted;
  }

  /** The provider sent something: the silence starts again. */
  touch(): void {
    clearTimeout(this.timer);
    this.timer = this.arm();
  }

  clear(): void {
    clearTimeout(this.timer);
  }

  private arm(): NodeJS.Timeout {
    return setTimeout(() => this.controller.abort(new UpstreamStallError(this.ms)), this.ms);
  }
}

export interface UpstreamCall {
  url: string;
  method: string;
  headers: Headers;
  body: Buffer | null;
  /**
   * The session closing or the harness hanging up: no further attempt is started, and the attempt
   * under way gives its slot of the limit back.
   */
  signal: AbortSignal;
  /**
   * The session closing: cuts the attempt under way. (A harness that hangs up does not: the relay
   * reads the answer to learn the call's usage.)
   */
  attemptSignal: AbortSignal;
  timeoutMs: number;
  retry: RetryPolicy;
  random?: () => number;
  onRetry?: (notice: RetryNotice) => void;
  /** The provider's adaptive concurrency (adaptive-limit.ts); none: calls are not limited. */
  limit?: AdaptiveLimit;
}

/** Frees an answered call's slot of the limit (once; later calls do nothing). */
export type SlotRelease = (outcome: CallOutcome) => void;

/** A slot of `limit` for one attempt, given back as abandoned when `signal` ends first. */
async function slotFor(limit: AdaptiveLimit | undefined, signal: AbortSignal): Promise<SlotRelease> {
  if (!limit) return () => {};
  const release = await limit.acquire(signal);
  const abandon = () => release({ overloaded: false, abandoned: true });
  if (signal.aborted) abandon();
  else signal.addEventListener("abort", abandon, { once: true });
  return (outcome) => {
    signal.removeEventListener("abort", abandon);
    release(outcome);
  };
}

/**
 * Whether a failed call may have been billed: its last attempt was cut after the request may have
 * reached the provider (a stall, a connection reset or closed), as opposed to an answer with an error
 * status (billed nothing) or a connection that never opened.
 */
export function mayHaveBeenBilled(err: unknown): boolean {
  const last = err instanceof ModelCallError ? err.cause : err;
  if (last instanceof UpstreamStallError) return true;
  if (last instanceof UpstreamStatusError) return false;
  return classifyError(last).kind === "provider-unreachable" && !neverConnected(last);
}

function classify(err: unknown): FailureClass {
  if (err instanceof UpstreamStatusError) {
    return { ...classifyStatus(err.status, err.body), retryAfterMs: retryAfterMs(err.headers) };
  }
  // a stall already waited the whole timeout: not retried (the harness's own retry may try again)
  if (err instanceof UpstreamStallError) return { kind: "provider-outage", retryable: false };
  if (err instanceof RequestFaultError) return { kind: "provider-rejected", retryable: false };
  const failure = classifyError(err);
  return mayHaveBeenBilled(err) ? { ...failure, retryable: false } : failure;
}

/** The provider's answer, the stall timer watching its body, and its slot of the limit. */
export interface UpstreamAnswer {
  response: Response;
  stall: StallTimer;
  release: SlotRelease;
}

/**
 * The provider's answer (any status but the retried ones) with the stall timer that keeps watching
 * its body (touch it per chunk and clear it at the end) and the slot to release when its body ends.
 * Throws a ModelCallError after the retries, or the abort reason when `call.signal` ends the call.
 */
export async function callUpstream(call: UpstreamCall): Promise<UpstreamAnswer> {
  let stall: StallTimer | null = null;
  try {
    return await withRetry(
      async () => {
        stall?.clear();
        const release = await slotFor(call.limit, call.signal);
        const timer = new StallTimer(call.timeoutMs);
        stall = timer;
        try {
          const r = await fetch(call.url, {
            method: call.method,
            headers: call.headers,
            body: call.body === null ? undefined : new Uint8Array(call.body),
            signal: AbortSignal.any([call.attemptSignal, timer.signal]),
          }).catch((err: unknown) => {
            throw requestFault(err) ?? err;
          });
          if (r.status === 429 || r.status >= 500 || r.status === 408) {
            throw new UpstreamStatusError(r.status, r.headers, await r.text());
          }
          return { response: r, stall: timer, release };
        } catch (err) {
          release(failedOutcome(classify(err)));
          throw err;
        }
      },
      call.retry,
      { signal: call.signal, random: call.random, classify, onRetry: call.onRetry },
    );
  } catch (err) {
    (stall as StallTimer | null)?.clear();
    throw err;
  }
}
