// Test support: a process that creates one sandbox and removes it (argv: image), as any kgate
// command that uses Docker would (e.g. `kgate check`, `kgate calibrate`).
import { DockerSandbox } from "../../src/sandbox/docker/container.ts";

const box = await DockerSandbox.create({
  image: process.argv[2]!,
  limits: { cpus: 1, memoryMb: 128, pids: 32 },
  labels: { kgate: "1", "kgate.run": `test-one-sandbox-${process.pid}` },
});
await box.remove();
