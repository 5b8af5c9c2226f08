// Scans a task's files on several threads when there is enough to read: the main thread and scan
// workers (scan-worker.ts) take files from one queue, largest first, so whoever is free takes the
// next; findings come back in file order. The queue is a counter in shared memory that every
// thread advances atomically, so a worker never waits for the main thread to hand it a file. Each
// worker's first file is its own (so each takes part). A worker that fails leaves its files to
// the main thread, so nothing is lost.
import { availableParallelism } from "node:os";
import type { Finding } from "./findings.ts";
import type { ArtefactInfo, RuleSet } from "./rules.ts";
import { type ScanTarget, scanFile, sizeOf } from "./scan-file.ts";
import type { AuditFile } from "./schema.ts";

/** Below this many bytes a worker's start-up costs more than it saves. */
export const PARALLEL_MIN_BYTES = 8 * 1024 * 1024;
const MAX_WORKERS = 3;

/** What a scan worker needs to compile the task's rules itself. */
export interface ScanJob {
  task: string;
  audit: AuditFile;
  artefact: ArtefactInfo;
}

/**
 * What a scan worker is started with: its job, the files and the order they are taken in, its
 * first file (a position in that order), and the shared queue: one Int32 counter, the position
 * of the next file to take.
 */
export interface WorkerData {
  job: ScanJob;
  targets: readonly ScanTarget[];
  order: readonly number[];
  first: number;
  queue: SharedArrayBuffer;
}

/** What a scan worker sends: the findings of a file, one message each. */
export interface FromWorker {
  index: number;
  findings: Finding[];
}

/** The next file to scan (its index in the targets), taken from the shared queue. */
export function takeNext(counter: Int32Array, order: readonly number[]): number | undefined {
  const at = Atomics.add(counter, 0, 1);
  return at < order.length ? order[at] : undefined;
}

function numberFromEnv(name: string, fallback: number): number {
  const text = process.env[name];
  const value = text === undefined || text === "" ? Number.NaN : Number(text);
  return Number.isInteger(value) && value >= 0 ? value : fallback;
}

/** Scan workers to start besides the main thread: KGATE_AUDIT_THREADS (1 = none) and size decide. */
export function workersFor(targets: readonly ScanTarget[]): number {
  const threads = numberFromEnv("KGATE_AUDIT_THREADS", availableParallelism());
  const minBytes = numberFromEnv("KGATE_AUDIT_PARALLEL_BYTES", PARALLEL_MIN_BYTES);
  const bytes = targets.reduce((sum, t) => sum + sizeOf(t), 0);
  if (threads <= 1 || bytes < minBytes) return 0;
  return Math.min(threads - 1, MAX_WORKERS, targets.length - 1);
}

/** The order files are taken in: largest first, so the last ones to finish are small. */
export function queueOrder(targets: readonly ScanTarget[]): number[] {
  return targets.map((_, i) => i).sort((a, b) => sizeOf(targets[b]!) - sizeOf(targets[a]!) || a - b);
}

const fromSources = import.meta.url.endsWith(".ts");

/**
 * The worker's entry: scan-worker.js next to the bundle, or from the TypeScript sources a module
 * that registers tsx's loader first (a worker does not inherit the loader hooks of its parent).
 */
function workerEntry(): URL {
  if (!fromSources) return new URL("./scan-worker.js", import.meta.url);
  const tsx = import.meta.resolve("tsx/esm/api");
  const entry = new URL("./scan-worker.ts", import.meta.url).href;
  const code = `import { register } from ${JSON.stringify(tsx)}; register(); await import(${JSON.stringify(entry)});`;
  return new URL(`data:text/javascript,${encodeURIComponent(code)}`);
}

/** The findings of each target, in order, and how many threads scanned them. */
export async function scanFiles(
  job: ScanJob,
  rules: RuleSet,
  targets: readonly ScanTarget[],
): Promise<{ findings: Finding[][]; threads: number }> {
  const results: Finding[][] = new Array(targets.length);
  const order = queueOrder(targets);
  const count = workersFor(targets);
  // The first `count` files are the workers' first files; the queue starts after them.
  const queue = new SharedArrayBuffer(4);
  const counter = new Int32Array(queue);
  counter[0] = count;
  let threads = 1;

  // node:worker_threads is loaded only when workers start: a small audit (the pre-commit hook's)
  // does without it.
  const Worker = count > 0 ? (await import("node:worker_threads")).Worker : undefined;
  const runWorker = (WorkerThread: NonNullable<typeof Worker>, first: number) =>
    new Promise<void>((resolve) => {
      const workerData: WorkerData = { job, targets, order, first, queue };
      const worker = new WorkerThread(workerEntry(), { workerData });
      let scanned = 0;
      const stop = () => {
        if (scanned > 0) threads++;
        worker.removeAllListeners();
        void worker.terminate();
        resolve();
      };
      worker.on("message", (message: FromWorker | "done") => {
        if (message === "done") return stop();
        results[message.index] = message.findings;
        scanned++;
      });
      worker.once("error", stop);
      worker.once("exit", stop);
    });

  const workers = Worker ? Array.from({ length: count }, (_, first) => runWorker(Worker, first)) : [];
  for (let index = takeNext(counter, order); index !== undefined; index = takeNext(counter, order)) {
    results[index] = await scanFile(job.task, rules, targets[index]!);
  }
  await Promise.all(workers);
  // What a failed worker did not finish.
  for (const index of order) results[index] ??= await scanFile(job.task, rules, targets[index]!);
  return { findings: results, threads };
}
