// Worker-thread entry of the killable verifier: verifies one trial's outputs per message, the task
// loaded afresh from disk each time, and posts the verdict back; the parent (worker-pool.ts) keeps it
// for later trials or kills it at the limit. The bundle starts it as dist/verify-worker.js; from the
// sources verify-worker.mjs registers tsx first.
import { parentPort } from "node:worker_threads";
import { verifyLoaded, type WorkerJob } from "./worker-verify.ts";

// What a verifier prints is nobody's output (kgate's own may be --json): dropped here, so a worker
// kept for many trials buffers none of it (the parent reads neither stream).
for (const stream of [process.stdout, process.stderr]) stream.write = (() => true) as typeof stream.write;

parentPort!.on("message", async ({ id, job }: { id: number; job: WorkerJob }) => {
  try {
    parentPort!.postMessage({ id, verdict: await verifyLoaded(job) });
  } catch (err) {
    parentPort!.postMessage({ id, error: err instanceof Error ? err.message : String(err) });
  }
});
