// Benchmark: a run's verifications in the killable worker (src/verify/worker-pool.ts), kept workers
// against the same-run baseline of a fresh worker per verification (the pool with one job a worker,
// which is how kgate verified before). Library tasks' oracle answers, one verification after another
// and four at a time; CPU is this process's (the workers are its threads). Target: < 0.5x the CPU.
//   npm run build && npm run bench verify-workers
import { availableParallelism, loadavg } from "node:os";
import path from "node:path";
import { bundleIsCurrent } from "../bin/bundle-fresh.js";
import { projectPaths } from "../src/project.ts";
import { loadValidTask } from "../src/task/index.ts";
import { compiledVerifier } from "../src/verify/compiled.ts";
import { loadVerifier, renderAnswers, solveRaw } from "../src/verify/index.ts";
import { VERIFIER_POOL } from "../src/verify/killable.ts";
import { VerifierPool } from "../src/verify/worker-pool.ts";
import type { WorkerJob } from "../src/verify/worker-verify.ts";

const ROOT = path.resolve(import.meta.dirname, "..");
const TASKS = ["bom-costing", "contract-clause", "paper-index"];
const JOBS = 60;

async function jobs(): Promise<WorkerJob[]> {
  const paths = projectPaths(ROOT);
  const made: WorkerJob[] = [];
  for (const id of TASKS) {
    const task = loadValidTask(paths, id);
    const loaded = await loadVerifier(task);
    const outputs = renderAnswers(task, loaded, solveRaw(task, loaded, "artefact"));
    made.push({ root: ROOT, taskId: id, outputs, verifierModule: await compiledVerifier(task) });
  }
  return Array.from({ length: JOBS }, (_, i) => made[i % made.length]!);
}

interface Timing {
  wallMs: number;
  cpuMs: number;
  started: number;
}

async function timed(all: WorkerJob[], jobsPerWorker: number, parallel: number): Promise<Timing> {
  // kgate's own settings (from the bundle, as kgate runs) but for the jobs a worker serves.
  const entry = new URL("../dist/verify-worker.js", import.meta.url);
  const pool = new VerifierPool({ ...VERIFIER_POOL, entry, jobsPerWorker });
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < all.length; i += parallel) {
    const verdicts = await Promise.all(all.slice(i, i + parallel).map((job) => pool.run(job, 60_000)));
    const failed = verdicts.find((v) => v.status !== "pass");
    if (failed) throw new Error(`an oracle answer did not pass: ${JSON.stringify(failed).slice(0, 300)}`);
  }
  const used = process.cpuUsage(cpu);
  return {
    wallMs: performance.now() - started,
    cpuMs: (used.user + used.system) / 1000,
    started: pool.started,
  };
}

export default async function bench(): Promise<void> {
  if (!bundleIsCurrent()) throw new Error("dist/ is older than src/: run `npm run build` first");
  const all = await jobs();
  await timed(all.slice(0, 3), 100, 1); // warm the file cache and the compiled modules
  process.stdout.write(
    `${JOBS} verifications of the oracle answers of ${TASKS.join(", ")}; load average ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} CPUs\n`,
  );
  for (const parallel of [1, 4]) {
    const fresh = await timed(all, 1, parallel);
    const kept = await timed(all, 200, parallel);
    const row = (label: string, t: Timing) =>
      `  ${label.padEnd(34)} ${(t.wallMs / JOBS).toFixed(1).padStart(6)} ms wall ${(t.cpuMs / JOBS).toFixed(1).padStart(6)} ms CPU a verification, ${t.started} workers started\n`;
    process.stdout.write(`${parallel === 1 ? "one after another" : `${parallel} at a time`}:\n`);
    process.stdout.write(row("baseline: a fresh worker each", fresh));
    process.stdout.write(row("kept workers", kept));
    process.stdout.write(
      `  ratio: ${(kept.cpuMs / fresh.cpuMs).toFixed(2)}x the CPU, ${(kept.wallMs / fresh.wallMs).toFixed(2)}x the wall time\n`,
    );
  }
}
