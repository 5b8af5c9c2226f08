// Worker-thread entry of the killable verifier: loads the task and verifies one trial's outputs,
// posting the verdict back; the parent kills it at the limit. The bundle starts it as
// dist/verify-worker.js; from the sources verify-worker.mjs registers tsx first.
import { parentPort, workerData } from "node:worker_threads";
import { verifyLoaded } from "./worker-verify.ts";

try {
  parentPort!.postMessage({ verdict: await verifyLoaded(workerData) });
} catch (err) {
  parentPort!.postMessage({ error: err instanceof Error ? err.message : String(err) });
}
