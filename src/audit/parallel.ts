// Scans a task's files on several threads when there is enough to read: the main thread and scan
// workers (scan-worker.ts) each take a share of the files, balanced by size; findings come back in
// file order. A worker that fails leaves its files to the main thread, so nothing is lost.
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import type { Finding } from "./findings.ts";
import type { ArtefactInfo, RuleSet } from "./rules.ts";
import { type ScanTarget, scanFile } from "./scan-file.ts";
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

export interface WorkerData {
  job: ScanJob;
  targets: ScanTarget[];
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
  const bytes = targets.reduce((sum, t) => sum + t.bytes.byteLength, 0);
  if (threads <= 1 || bytes < minBytes) return 0;
  return Math.min(threads - 1, MAX_WORKERS, targets.length - 1);
}

/** Indices of `targets` in `groups` shares of about equal size (largest files first). */
export function shares(targets: readonly ScanTarget[], groups: number): number[][] {
  const out: number[][] = Array.from({ length: groups }, () => []);
  const load = new Array<number>(groups).fill(0);
  const bySize = targets
    .map((_, i) => i)
    .sort((a, b) => targets[b]!.bytes.byteLength - targets[a]!.bytes.byteLength);
  for (const i of bySize) {
    const lightest = load.indexOf(Math.min(...load));
    out[lightest]!.push(i);
    load[lightest]! += targets[i]!.bytes.byteLength;
  }
  for (const share of out) share.sort((a, b) => a - b);
  return out;
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

function runWorker(data: WorkerData): Promise<Finding[][]> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(workerEntry(), { workerData: data });
    worker.once("message", (findings: Finding[][]) => resolve(findings));
    worker.once("error", reject);
    worker.once("exit", (code) => reject(new Error(`scan worker exited with code ${code}`)));
  });
}

/** The findings of each target, in order, and how many threads scanned them. */
export async function scanFiles(
  job: ScanJob,
  rules: RuleSet,
  targets: readonly ScanTarget[],
): Promise<{ findings: Finding[][]; threads: number }> {
  const results: Finding[][] = new Array(targets.length);
  let threads = 1;
  const scanHere = async (indices: readonly number[]) => {
    for (const i of indices) results[i] = await scanFile(job.task, rules, targets[i]!);
  };
  const workers = workersFor(targets);
  if (workers === 0) {
    await scanHere(targets.map((_, i) => i));
    return { findings: results, threads };
  }
  const [mine, ...theirs] = shares(targets, workers + 1);
  const delegated = theirs.map(async (share) => {
    try {
      const found = await runWorker({ job, targets: share.map((i) => targets[i]!) });
      share.forEach((i, k) => {
        results[i] = found[k]!;
      });
      threads++;
    } catch {
      // Nothing is lost: the main thread scans what the worker could not.
      await scanHere(share);
    }
  });
  await scanHere(mine!);
  await Promise.all(delegated);
  return { findings: results, threads };
}
