// A scan worker (started by parallel.ts): compiles the task's rules, scans its first file, then
// takes files from the shared queue until it is empty, sending the findings of each back; then
// says it is done.
import { parentPort, workerData } from "node:worker_threads";
import { type FromWorker, takeNext, type WorkerData } from "./parallel.ts";
import { compileRules } from "./rules.ts";
import { scanFile } from "./scan-file.ts";

const { job, targets, order, first, queue } = workerData as WorkerData;
const rules = compileRules(job.audit, job.artefact);
const counter = new Int32Array(queue);
for (let index: number | undefined = order[first]; index !== undefined; index = takeNext(counter, order)) {
  const findings = await scanFile(job.task, rules, targets[index]!);
  parentPort!.postMessage({ index, findings } satisfies FromWorker);
}
parentPort!.postMessage("done");
