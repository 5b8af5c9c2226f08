// Every sandbox has a deadline of its own (red-team item 13): PID 1 exits at the task's timeout plus
// slack, so a container whose kgate was SIGKILLed stops by itself, background processes included.
import { describe, expect, it } from "vitest";
import { DockerClient } from "../src/sandbox/docker/client.ts";
import { DockerSandbox, keepaliveFor } from "../src/sandbox/docker/container.ts";
import { LABEL_RUN } from "../src/sandbox/index.ts";
import { trialBudget } from "../src/trial/index.ts";
import { sandboxImage } from "./support/sandbox.ts";

const RUN = `test-hostile-deadline-${process.pid}`;

describe("the sandbox's own deadline", () => {
  it("is the trial budget's: the wall clock plus the slack, as PID 1's command", () => {
    // timeoutSec 900 + slack 600 = 1500 seconds.
    const limits = { timeoutSec: 900, maxTokens: 1000, maxTurns: 5 };
    const deadline = trialBudget({ limits, sandbox: true }).sandboxDeadlineSec!;
    expect(deadline).toBe(1500);
    expect(keepaliveFor(deadline).at(-1)).toContain("end=$((SECONDS+1500))");
  });

  it("stops the container, and an agent's setsid background process with it, when it passes", async () => {
    const docker = new DockerClient();
    const box = await DockerSandbox.create({
      image: sandboxImage(),
      limits: { cpus: 0.5, memoryMb: 128, pids: 32 },
      deadlineSec: 4,
      labels: { kgate: "1", [LABEL_RUN]: RUN },
      docker,
    });
    try {
      // An orphan that would outlive the trial: detached, ignoring TERM.
      const bg = await box.exec([
        "bash",
        "-c",
        "setsid nohup bash -c 'trap \"\" TERM; sleep 1000' >/dev/null 2>&1 & echo started",
      ]);
      expect(bg.stdout).toBe("started\n");
      const state = async () => (await docker.listContainers([`${LABEL_RUN}=${RUN}`]))[0]?.state;
      expect(await state()).toBe("running");
      // Deadline 4 s after start: poll for up to 20 s.
      let seen = await state();
      for (let i = 0; i < 40 && seen === "running"; i++) {
        await new Promise((r) => setTimeout(r, 500));
        seen = await state();
      }
      expect(seen).toBe("exited");
      // The deadline ends an orphan for good: the exited container's home (a tmpfs volume, disk.ts)
      // was unmounted with it, so the work directory is gone (a live trial freezes, never exits, first).
      await expect(box.stat(".")).resolves.toBeNull();
    } finally {
      await box.remove();
    }
  }, 60_000);
});
