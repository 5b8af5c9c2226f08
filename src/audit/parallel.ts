// Scans a task's files on several threads when there is enough to read: the main thread and scan
// workers (scan-worker.ts) take files from one queue, largest first, so whoever is free takes the
// next; findings come back in file order. A worker that fails leaves its files to the main thread,
// so nothing is lost.
import { availableParallelism } from "node:os";
import type { Finding } from "./findings.ts";
import type { ArtefactInfo, RuleSet } from "./rules.ts";
import { type ScanTarget, scanFile, sizeOf } from "./scan-file.ts";
import type { AuditFile } from "./schema.ts";

/** Below this many bytes a worker's start-up costs more than it saves. */
export const PARALLEL_MIN_BYTES = 8 * 1024 * 1024;
const MAX_WORKERS = 3;
/** Files a worker holds at once: the next one is there when it finishes one. */
const IN_FLIGHT = 2;

/** What a scan worker needs to compile the task's rules itself. */
export interface ScanJob {
  task: string;
  audit: AuditFile;
  artefact: ArtefactInfo;
}

/** Messages between the main thread and a scan worker. */
export interface ToWorker {
  index: number;
  target: ScanTarget;
}
export interface FromWorker {
  index: number;
  findings: Finding[];
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
  const queue = queueOrder(targets);
  let next = 0;
  const take = () => (next < queue.length ? queue[next++] : undefined);
  /** Files a failed worker held: the main thread scans them. */
  const orphans: number[] = [];
  let threads = 1;

  const count = workersFor(targets);
  // node:worker_threads is loaded only when workers start: a small audit (the pre-commit hook's)
  // does without it.
  const Worker = count > 0 ? (await import("node:worker_threads")).Worker : undefined;
  const runWorker = (WorkerThread: NonNullable<typeof Worker>) =>
    new Promise<void>((resolve) => {
      const worker = new WorkerThread(workerEntry(), { workerData: job });
      const held = new Set<number>();
      let finished = 0;
      const send = () => {
        const index = take();
        if (index === undefined) return false;
        held.add(index);
        worker.postMessage({ index, target: targets[index]! } satisfies ToWorker);
        return true;
      };
      const stop = (failed: boolean) => {
        if (failed) orphans.push(...held);
        else if (finished > 0) threads++;
        held.clear();
        worker.removeAllListeners();
        void worker.terminate();
        resolve();
      };
      worker.on("message", (message: FromWorker) => {
        results[message.index] = message.findings;
        held.delete(message.index);
        finished++;
        if (!send() && held.size === 0) stop(false);
      });
      worker.once("error", () => stop(true));
      worker.once("exit", () => stop(held.size > 0));
      for (let k = 0; k < IN_FLIGHT; k++) if (!send()) break;
      if (held.size === 0) stop(false);
    });

  const workers = Worker ? Array.from({ length: count }, () => runWorker(Worker)) : [];
  for (let index = take(); index !== undefined; index = take()) {
    results[index] = await scanFile(job.task, rules, targets[index]!);
    // Let workers' messages in between files, so they get their next file.
    if (workers.length > 0) await new Promise((resolve) => setImmediate(resolve));
  }
  await Promise.all(workers);
  for (const index of orphans) results[index] = await scanFile(job.task, rules, targets[index]!);
  return { findings: results, threads };
}
