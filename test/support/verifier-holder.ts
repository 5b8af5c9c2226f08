// Test support: a process that compiles a library task's verifier (src/verify/compiled.ts), prints the
// folder it was written to and waits until it is killed (SIGTERM exits, removing the folder; SIGKILL
// leaves it behind).
import path from "node:path";
import { projectPaths } from "../../src/project.ts";
import { loadValidTask } from "../../src/task/index.ts";
import { compiledVerifier } from "../../src/verify/compiled.ts";

const task = loadValidTask(projectPaths(path.resolve(import.meta.dirname, "../..")), "bom-costing");
const file = await compiledVerifier(task);
if (!file) throw new Error("bom-costing's verifier did not compile");
process.once("SIGTERM", () => process.exit(0));
setInterval(() => {}, 60_000);
process.stdout.write(`${path.dirname(file)}\n`);
