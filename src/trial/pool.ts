// The engine's one bounded pool for the units of every kind (trials, exams, probe trials, triage
// units), with a limit per provider: a job waits only for a free slot of its own provider, so one API's rate limit never stalls the others. Jobs start
// in submission order among those whose provider has room.

export interface PoolOptions {
  /** Jobs running at once across all providers. */
  concurrency: number;
  /** Jobs running at once per provider; a provider not listed is bounded by `concurrency` only. */
  providerLimits?: Readonly<Record<string, number>>;
  /** Aborting rejects queued jobs and is passed on to running ones. */
  signal?: AbortSignal;
}

interface Queued<J, R> {
  job: J;
  provider: string;
  resolve: (result: R) => void;
  reject: (err: unknown) => void;
}

export class PoolAbortedError extends Error {
  override name = "PoolAbortedError";
  constructor() {
    super("the pool was aborted before the job started");
  }
}

export class UnitPool<J, R> {
  private readonly queue: Queued<J, R>[] = [];
  private readonly running = new Map<string, number>();
  private total = 0;
  private readonly limits: Readonly<Record<string, number>>;
  private readonly signal: AbortSignal;

  constructor(
    private readonly options: PoolOptions,
    private readonly providerOf: (job: J) => string,
    private readonly work: (job: J, signal: AbortSignal) => Promise<R>,
  ) {
    if (!Number.isInteger(options.concurrency) || options.concurrency < 1) {
      throw new RangeError(`concurrency must be a positive integer, got ${options.concurrency}`);
    }
    this.limits = options.providerLimits ?? {};
    this.signal = options.signal ?? new AbortController().signal;
    this.signal.addEventListener("abort", () => {
      for (const q of this.queue.splice(0)) q.reject(new PoolAbortedError());
    });
  }

  /** Jobs running now, in total and per provider. */
  get active(): { total: number; byProvider: Record<string, number> } {
    return { total: this.total, byProvider: Object.fromEntries(this.running) };
  }

  get queued(): number {
    return this.queue.length;
  }

  submit(job: J): Promise<R> {
    if (this.signal.aborted) return Promise.reject(new PoolAbortedError());
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ job, provider: this.providerOf(job), resolve, reject });
      this.dispatch();
    });
  }

  private hasRoom(provider: string): boolean {
    const limit = this.limits[provider] ?? Number.POSITIVE_INFINITY;
    return (this.running.get(provider) ?? 0) < limit;
  }

  private dispatch(): void {
    while (this.total < this.options.concurrency && !this.signal.aborted) {
      const i = this.queue.findIndex((q) => this.hasRoom(q.provider));
      if (i < 0) return;
      const [next] = this.queue.splice(i, 1);
      this.start(next!);
    }
  }

  private start(q: Queued<J, R>): void {
    this.total += 1;
    this.running.set(q.provider, (this.running.get(q.provider) ?? 0) + 1);
    const finish = () => {
      this.total -= 1;
      this.running.set(q.provider, (this.running.get(q.provider) ?? 1) - 1);
      this.dispatch();
    };
    let promise: Promise<R>;
    try {
      promise = this.work(q.job, this.signal);
    } catch (err) {
      promise = Promise.reject(err);
    }
    promise.then(
      (result) => {
        finish();
        q.resolve(result);
      },
      (err) => {
        finish();
        q.reject(err);
      },
    );
  }
}
