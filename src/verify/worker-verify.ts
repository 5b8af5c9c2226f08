// Inside the verifier's worker thread: the task loaded afresh from disk, its outputs verified.

import { projectPaths } from "../project.ts";
import type { Verdict } from "../record/index.ts";
import { loadValidTask } from "../task/index.ts";
import type { OutputForVerification } from "./contract.ts";
import { importVerifierFrom } from "./load.ts";
import { verifyTrial } from "./verify.ts";

export interface WorkerJob {
  root: string;
  taskId: string;
  outputs: OutputForVerification[];
  /** The verifier compiled to plain JavaScript by the parent (compiled.ts), when it could be. */
  verifierModule?: string;
}

export function verifyLoaded(job: WorkerJob): Promise<Verdict> {
  const task = loadValidTask(projectPaths(job.root), job.taskId);
  if (job.verifierModule) importVerifierFrom(task.verifierPath, job.verifierModule);
  // Buffers cross the thread boundary as plain Uint8Arrays.
  const outputs = job.outputs.map((o) => ({
    ...o,
    bytes: o.bytes ? Buffer.from(o.bytes.buffer, o.bytes.byteOffset, o.bytes.byteLength) : undefined,
  }));
  return verifyTrial(task, outputs);
}
