// A scan worker (started by parallel.ts): compiles the task's rules, then scans each file it is
// sent and sends its findings back.
import { parentPort, workerData } from "node:worker_threads";
import type { FromWorker, ScanJob, ToWorker } from "./parallel.ts";
import { compileRules } from "./rules.ts";
import { scanFile } from "./scan-file.ts";

const job = workerData as ScanJob;
const rules = compileRules(job.audit, job.artefact);
// One file at a time, in the order sent.
let pending = Promise.resolve();
parentPort!.on("message", (message: ToWorker) => {
  pending = pending.then(async () => {
    const findings = await scanFile(job.task, rules, message.target);
    parentPort!.postMessage({ index: message.index, findings } satisfies FromWorker);
  });
});
