// Verification under a real, enforced time limit: the verifier runs in a worker thread that is
// terminated at the limit, so a verifier that loops or recurses on crafted output never stalls a run.
import { Worker } from "node:worker_threads";
import type { Verdict } from "../model/index.ts";
import type { LoadedTask } from "../task/index.ts";
import { compiledVerifier } from "./compiled.ts";
import type { OutputForVerification } from "./contract.ts";
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

/** The worker's entry: verify-worker.js next to the bundle, or the sources' tsx-registering module. */
const ENTRY = import.meta.url.endsWith(".ts")
  ? new URL("./verify-worker.mjs", import.meta.url)
  : new URL("./verify-worker.js", import.meta.url);
/** Old space of the worker: a verifier that builds a huge structure dies alone, not with kgate. */
const WORKER_HEAP_MB = 512;

/** Verifies in a worker thread; rejects with VerifierRunError on timeout or a dead worker. */
export async function verifyKillable(
  root: string,
  task: LoadedTask,
  outputs: readonly OutputForVerification[],
  timeoutMs: number,
): Promise<Verdict> {
  const verifierModule = await compiledVerifier(task);
  const job: WorkerJob = { root, taskId: task.id, outputs: [...outputs], verifierModule };
  return new Promise<Verdict>((resolve, reject) => {
    const worker = new Worker(ENTRY, {
      workerData: job,
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
      stdout: true,
      stderr: true,
    });
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      fn();
    };
    const timer = setTimeout(
      () =>
        settle(() =>
          reject(new VerifierRunError("timeout", `the verifier did not finish within ${timeoutMs / 1000} s`)),
        ),
      timeoutMs,
    );
    worker.on("message", (m: { verdict?: Verdict; error?: string }) =>
      settle(() =>
        m.verdict
          ? resolve(m.verdict)
          : reject(new VerifierRunError("crash", `the verifier threw: ${m.error}`)),
      ),
    );
    worker.on("error", (err) =>
      settle(() => reject(new VerifierRunError("crash", `the verifier failed: ${err.message}`))),
    );
    worker.on("exit", (code) =>
      settle(() => reject(new VerifierRunError("crash", `the verifier's worker exited with code ${code}`))),
    );
  });
}
