// The node bundle of a task beside exported rows (kgate_node/<task>/): bundle.json (id, digest,
// task.json's content, the data's digests, the canary), verifier.mjs and the environment data, for
// rows whose outputs only code can judge. The verifier holds the private conventions as code.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { LoadedTask } from "../../task/index.ts";
import { bundleVerifierModule } from "../bundle.ts";
import type { BundleFacts } from "../bundled-task.ts";
import { canaryLine } from "../canary.ts";

export const NODE_BUNDLES = "kgate_node";

/** Writes the bundle under `out`; returns its folder relative to `out`. */
export async function writeTaskBundle(out: string, task: LoadedTask, canary: string): Promise<string> {
  const relative = `${NODE_BUNDLES}/${task.id}`;
  const dir = path.join(out, relative);
  mkdirSync(path.join(dir, "environment"), { recursive: true });
  const facts: BundleFacts & { canary: string } = {
    id: task.id,
    taskDigest: task.digests.task,
    spec: JSON.parse(readFileSync(path.join(task.dir, "task.json"), "utf8")),
    data: task.environment.map((f) => ({ path: f.path, size: f.size, sha256: f.sha256 })),
    canary: canaryLine(canary),
  };
  writeFileSync(path.join(dir, "bundle.json"), `${JSON.stringify(facts, null, 2)}\n`);
  writeFileSync(
    path.join(dir, "verifier.mjs"),
    `// ${canaryLine(canary)}\n${await bundleVerifierModule(task)}`,
  );
  for (const f of task.environment) {
    const target = path.join(dir, "environment", ...f.path.split("/"));
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, readFileSync(f.absPath));
  }
  return relative;
}
