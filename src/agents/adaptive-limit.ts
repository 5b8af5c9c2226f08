// Adaptive concurrency of model calls per provider (AIMD): an overloaded answer (429, 503, 529)
// halves the calls a provider may have in flight (never below 1) and holds new calls until its
// retry-after; each window of successes (as many as the level) grows it back by one step up to the
// level below the last overload, and past that one step per PROBE_WINDOWS windows (probing for room
// the provider may have regained); never past the most calls ever in flight at once, which the
// pool's --concurrency bounds. One limit per provider (its name and API root) per session: a run, a
// calibration or an exam starts from no limit whatever an earlier session in the process met.
import type { FailureClass } from "./errors.ts";

/** Windows of successes at the last good level before one step past it is tried. */
export const PROBE_WINDOWS = 64;

/**
 * How a call's attempt ended, for the limit: answered (a success, counted towards growth), overloaded,
 * or abandoned (given up before its answer ended: its slot is freed and the level left as it is).
 */
export type CallOutcome =
  | { overloaded: false; abandoned?: true }
  | { overloaded: true; retryAfterMs?: number };

/** The outcome of an attempt that failed as `failure` says. */
export function failedOutcome(failure: FailureClass): CallOutcome {
  return isOverload(failure)
    ? { overloaded: true, retryAfterMs: failure.retryAfterMs }
    : { overloaded: false };
}

export interface AdaptiveLimitOptions {
  /** Milliseconds since an epoch (injectable for tests). */
  now?: () => number;
  /** Called when the level changes (a progress line). */
  onLevel?: (level: number, provider: string) => void;
}

interface Waiter {
  resolve: () => void;
  reject: (reason: unknown) => void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

export class AdaptiveLimit {
  /** Calls allowed in flight; Infinity until the first overloaded answer. */
  private levelNow = Number.POSITIVE_INFINITY;
  private inFlight = 0;
  private peak = 0;
  /** Successes since the level last changed. */
  private successes = 0;
  /** The level below the last overload: growth past it is a probe. */
  private goodLevel = Number.POSITIVE_INFINITY;
  /** A decrease is taken once per burst: only a call started after the last decrease may cause the next. */
  private epoch = 0;
  private holdUntil = 0;
  private holdTimer: ReturnType<typeof setTimeout> | null = null;
  private readonly waiters: Waiter[] = [];
  private readonly now: () => number;

  constructor(
    readonly provider: string,
    private readonly options: AdaptiveLimitOptions = {},
  ) {
    this.now = options.now ?? Date.now;
  }

  /** The current level (Infinity: never overloaded yet). */
  get level(): number {
    return this.levelNow;
  }

  get active(): number {
    return this.inFlight;
  }

  /** Waits for a slot; the returned function reports how the attempt ended and frees the slot. */
  async acquire(signal?: AbortSignal): Promise<(outcome: CallOutcome) => void> {
    // A waiter's slot is taken for it by dispatch(), before its continuation runs.
    if (this.hasRoom()) this.inFlight += 1;
    else await this.wait(signal);
    this.peak = Math.max(this.peak, this.inFlight);
    const epoch = this.epoch;
    let released = false;
    return (outcome) => {
      if (released) return;
      released = true;
      this.inFlight -= 1;
      if (outcome.overloaded) this.overloaded(epoch, outcome.retryAfterMs);
      else if (!outcome.abandoned) this.succeeded();
      this.dispatch();
    };
  }

  private hasRoom(): boolean {
    return this.inFlight < this.levelNow && this.now() >= this.holdUntil && this.waiters.length === 0;
  }

  private wait(signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const waiter: Waiter = { resolve, reject, signal };
      if (signal) {
        waiter.onAbort = () => {
          const i = this.waiters.indexOf(waiter);
          if (i >= 0) this.waiters.splice(i, 1);
          reject(signal.reason);
          this.dispatch();
        };
        signal.addEventListener("abort", waiter.onAbort, { once: true });
      }
      this.waiters.push(waiter);
      this.dispatch();
    });
  }

  private overloaded(epoch: number, retryAfterMs: number | undefined): void {
    if (retryAfterMs !== undefined && retryAfterMs > 0) {
      this.holdUntil = Math.max(this.holdUntil, this.now() + retryAfterMs);
    }
    if (epoch !== this.epoch) return; // the same burst already halved the level
    const from = Number.isFinite(this.levelNow) ? this.levelNow : this.inFlight + 1;
    this.goodLevel = Math.max(1, from - 1);
    this.setLevel(Math.max(1, Math.floor(from / 2)));
  }

  private succeeded(): void {
    if (!Number.isFinite(this.levelNow)) return;
    this.successes += 1;
    const window = this.levelNow < this.goodLevel ? this.levelNow : this.levelNow * PROBE_WINDOWS;
    if (this.successes >= window && this.levelNow < this.peak) this.setLevel(this.levelNow + 1);
  }

  private setLevel(level: number): void {
    this.levelNow = level;
    this.successes = 0;
    this.epoch += 1;
    this.options.onLevel?.(level, this.provider);
  }

  /** Starts waiting calls while there is room; during a hold, once it ends. */
  private dispatch(): void {
    const wait = this.holdUntil - this.now();
    if (wait > 0) {
      if (this.waiters.length > 0 && this.holdTimer === null) {
        this.holdTimer = setTimeout(() => {
          this.holdTimer = null;
          this.dispatch();
        }, wait);
      }
      return;
    }
    while (this.waiters.length > 0 && this.inFlight < this.levelNow) {
      const next = this.waiters.shift()!;
      if (next.onAbort) next.signal?.removeEventListener("abort", next.onAbort);
      this.inFlight += 1;
      next.resolve();
    }
  }
}

/** Whether a failure is the provider saying it is overloaded: 429, or Anthropic's 529 "overloaded". */
function isOverload(failure: { kind: string; status?: number }): boolean {
  return failure.kind === "rate-limit" || failure.status === 529 || failure.status === 503;
}

/** A provider as its limit is keyed: its name and API root. */
export interface LimitedProvider {
  provider: string;
  baseUrl: string;
}

/** One session's limits, one per provider, made on first use; `onLevel` hears each level change. */
export class AdaptiveLimits {
  private readonly byKey = new Map<string, AdaptiveLimit>();

  constructor(private readonly onLevel?: (level: number, provider: string) => void) {}

  of(p: LimitedProvider): AdaptiveLimit {
    const key = `${p.provider} ${p.baseUrl}`;
    let limit = this.byKey.get(key);
    if (!limit) {
      limit = new AdaptiveLimit(key, { onLevel: this.onLevel });
      this.byKey.set(key, limit);
    }
    return limit;
  }
}

/** A level change as a progress line. */
export function levelLine(level: number, provider: string): string {
  return `${provider}: ${level} model call(s) at once (adaptive)`;
}
