// Worker-thread entry of the killable verifier: registers tsx (verifiers are TypeScript, in a project
// that may be an ES module or a CommonJS scope, as bin/kgate.js does), loads the task and verifies one
// trial's outputs, posting the verdict back. The parent kills it at the limit.
import { parentPort, workerData } from "node:worker_threads";
import { register as registerCommonJs } from "tsx/cjs/api";
import { register } from "tsx/esm/api";

register();
registerCommonJs();
const { verifyLoaded } = await import("./worker-verify.ts");
try {
  parentPort.postMessage({ verdict: await verifyLoaded(workerData) });
} catch (err) {
  parentPort.postMessage({ error: err instanceof Error ? err.message : String(err) });
}
