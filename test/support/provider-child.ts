// Test support: a process that makes the provider of a project's kgate.config.json (argv: the project
// root, a run id, `hold` or `once`) and creates one sandbox of that run through it, as any kgate command
// would: `hold` prints `created <id>` and waits to be killed; `once` removes the sandbox and exits.
import { ownerLabel } from "../../src/common/index.ts";
import { projectPaths } from "../../src/project.ts";
import { LABEL, LABEL_OWNER, LABEL_RUN, sandboxProviderFor } from "../../src/sandbox/index.ts";

const [root, runId, mode = "hold"] = process.argv.slice(2) as [string, string, string?];
const paths = projectPaths(root);
const provider = sandboxProviderFor(paths);
const image = await provider.prepareImage(paths);
const box = await provider.create({
  image: image.ref,
  limits: { cpus: 0.5, memoryMb: 128, pids: 32, diskMb: 16 },
  deadlineSec: 900,
  network: false,
  labels: { [LABEL]: "1", [LABEL_RUN]: runId, [LABEL_OWNER]: ownerLabel() },
});
if (mode === "once") await box.remove();
else {
  process.stdout.write(`created ${box.id}\n`);
  setInterval(() => {}, 60_000);
}
