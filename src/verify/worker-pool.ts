// Verification worker threads kept warm between trials: starting one costs about 0.3 s of CPU (Node's
// bootstrap, kgate's modules, its schemas), which was most of a trial's CPU on the host. A job gets an
// idle worker or a new one, never waits for one; a worker past its time limit is terminated, one that
// failed a job or served `jobsPerWorker` jobs is retired, idle ones beyond `maxIdle` are ended.
import { Worker } from "node:worker_threads";
import type { Verdict } from "../record/index.ts";
import type { WorkerJob } from "./worker-verify.ts";

/** The verifier did not finish in time, or failed outside the verdict (its worker died). */
export class VerifierRunError extends Error {
  override name = "VerifierRunError";
  constructor(
    readonly reason: "timeout" | "crash",
    message: string,
  ) {
    super(message);
  }
}

export interface PoolOptions {
  /** The worker's module (it answers `{ id, job }` messages with `{ id, verdict }` or `{ id, error }`). */
  entry: URL;
  /** Old space of each worker: a verifier that builds a huge structure dies alone, not with kgate. */
  heapMb: number;
  /** Jobs one worker serves before it is replaced (1: a fresh worker per job). */
  jobsPerWorker: number;
  /** Idle workers kept for the next jobs; more are ended when their job is done. */
  maxIdle: number;
  /** An idle worker is ended after this long without a job. */
  idleMs: number;
}

type Outcome = { verdict: Verdict } | { failure: VerifierRunError };

interface Slot {
  worker: Worker;
  served: number;
  /** The job the worker is running, if any: its message id and what settles it. */
  job?: { id: number; settle: (outcome: Outcome) => void };
  idleTimer?: NodeJS.Timeout;
}

type Reply = { id: number; verdict?: Verdict; error?: string };

export class VerifierPool {
  private readonly idle: Slot[] = [];
  private nextId = 0;
  /** Workers started so far (each costs a thread's start and kgate's imports). */
  started = 0;

  constructor(private readonly options: PoolOptions) {}

  /** Verifies `job` in a worker; rejects with VerifierRunError at `timeoutMs` or when the worker fails. */
  run(job: WorkerJob, timeoutMs: number): Promise<Verdict> {
    const slot = this.idle.pop() ?? this.start();
    clearTimeout(slot.idleTimer);
    slot.worker.ref();
    slot.served++;
    const id = ++this.nextId;
    return new Promise<Verdict>((resolve, reject) => {
      const settle = (outcome: Outcome) => {
        if (slot.job?.id !== id) return;
        clearTimeout(timer);
        slot.job = undefined;
        if ("verdict" in outcome) {
          this.release(slot);
          resolve(outcome.verdict);
        } else {
          // A worker that timed out, threw or died is not used again.
          this.retire(slot);
          reject(outcome.failure);
        }
      };
      const limit = `the verifier did not finish within ${timeoutMs / 1000} s`;
      const timer = setTimeout(() => settle({ failure: new VerifierRunError("timeout", limit) }), timeoutMs);
      slot.job = { id, settle };
      slot.worker.postMessage({ id, job });
    });
  }

  private start(): Slot {
    const worker = new Worker(this.options.entry, {
      resourceLimits: { maxOldGenerationSizeMb: this.options.heapMb },
      stdout: true,
      stderr: true,
    });
    const slot: Slot = { worker, served: 0 };
    this.started++;
    worker.on("message", (reply: Reply) => {
      if (reply.id !== slot.job?.id) return;
      slot.job.settle(
        reply.verdict
          ? { verdict: reply.verdict }
          : { failure: new VerifierRunError("crash", `the verifier threw: ${reply.error}`) },
      );
    });
    const dead = (message: string) => {
      this.forget(slot);
      slot.job?.settle({ failure: new VerifierRunError("crash", message) });
    };
    worker.on("error", (err) => dead(`the verifier failed: ${err.message}`));
    worker.on("exit", (code) => dead(`the verifier's worker exited with code ${code}`));
    return slot;
  }

  /** After a verdict: back to the idle workers, or ended when it has served its jobs or enough are idle. */
  private release(slot: Slot): void {
    if (slot.served >= this.options.jobsPerWorker || this.idle.length >= this.options.maxIdle) {
      this.retire(slot);
      return;
    }
    slot.worker.unref();
    slot.idleTimer = setTimeout(() => this.retire(slot), this.options.idleMs).unref();
    this.idle.push(slot);
  }

  private retire(slot: Slot): void {
    this.forget(slot);
    void slot.worker.terminate();
  }

  private forget(slot: Slot): void {
    clearTimeout(slot.idleTimer);
    const index = this.idle.indexOf(slot);
    if (index >= 0) this.idle.splice(index, 1);
  }
}
