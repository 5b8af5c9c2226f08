// Verification under a real, enforced time limit: the verifier runs in a worker thread that is
// terminated at the limit, so a verifier that loops or recurses on crafted output never stalls a run.
// Workers are kept between verifications (worker-pool.ts): starting one is most of a verification's CPU.
import { availableParallelism } from "node:os";
import type { Verdict } from "../record/index.ts";
import type { LoadedTask } from "../task/index.ts";
import { compiledVerifier } from "./compiled.ts";
import type { OutputForVerification } from "./contract.ts";
import { type PoolOptions, VerifierPool } from "./worker-pool.ts";

/** The worker's entry: verify-worker.js next to the bundle, or the sources' tsx-registering module. */
const ENTRY = import.meta.url.endsWith(".ts")
  ? new URL("./verify-worker.mjs", import.meta.url)
  : new URL("./verify-worker.js", import.meta.url);

/**
 * How this process's verification workers run: each renewed after 200 jobs; idle ones (about 25 MB
 * each) kept up to 4 or one a CPU, for 30 s.
 */
export const VERIFIER_POOL: PoolOptions = {
  entry: ENTRY,
  heapMb: 512,
  jobsPerWorker: 200,
  maxIdle: Math.max(4, availableParallelism()),
  idleMs: 30_000,
};
const pool = new VerifierPool(VERIFIER_POOL);

/** Verifies in a worker thread; rejects with VerifierRunError on timeout or a dead worker. */
export async function verifyKillable(
  root: string,
  task: LoadedTask,
  outputs: readonly OutputForVerification[],
  timeoutMs: number,
): Promise<Verdict> {
  const verifierModule = await compiledVerifier(task);
  return pool.run({ root, taskId: task.id, outputs: [...outputs], verifierModule }, timeoutMs);
}
