// A scan worker (started by parallel.ts): compiles the task's rules and scans the files it is given.
import { parentPort, workerData } from "node:worker_threads";
import type { Finding } from "./findings.ts";
import type { WorkerData } from "./parallel.ts";
import { compileRules } from "./rules.ts";
import { scanFile } from "./scan-file.ts";

const { job, targets } = workerData as WorkerData;
const rules = compileRules(job.audit, job.artefact);
const findings: Finding[][] = [];
for (const target of targets) findings.push(await scanFile(job.task, rules, target));
parentPort!.postMessage(findings);
