// Resource limits hold: a fork bomb and a memory hog end as agent failures while a trial running
// beside them (and the host) carry on unaffected.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { oracleAgent } from "../src/agents/index.ts";
import { DockerClient } from "../src/sandbox/docker/client.ts";
import { LABEL_RUN } from "../src/sandbox/index.ts";
import { runTrial } from "../src/trial/index.ts";
import { sandboxTarget } from "./support/engine.ts";
import { type DemoTask, demoTask } from "./support/sandbox.ts";

const RUN = `test-limits-${process.pid}`;

function start(demo: DemoTask, index: number) {
  return runTrial({
    ...demo,
    agent: oracleAgent(),
    condition: "+A",
    runId: RUN,
    runDir: path.join(demo.paths.runs, RUN),
    index,
    ...sandboxTarget(),
  });
}

describe("resource limits", () => {
  it("a fork bomb and a memory hog fail as the agent's fault; the trial beside them passes", async () => {
    const forkBomb = demoTask({
      id: "fork-bomb",
      spec: (s) => {
        s.limits = { ...s.limits, pids: 64, timeoutSec: 8 };
      },
      solution: "bomb() { bomb | bomb & }; bomb\nsleep 60\n",
    });
    const memoryHog = demoTask({
      id: "memory-hog",
      spec: (s) => {
        s.limits = { ...s.limits, memoryMb: 128, timeoutSec: 60 };
      },
      solution: "python3 -c \"blocks = []\nwhile True: blocks.append(b'x' * 10_000_000)\"\n",
    });
    const normal = demoTask();

    const pending = [start(forkBomb, 0), start(memoryHog, 1), start(normal, 2)];
    // The host keeps forking processes normally while the bomb goes off in its container.
    await new Promise((r) => setTimeout(r, 3000));
    expect(spawnSync("true").status).toBe(0);
    const [bomb, hog, ok] = await Promise.all(pending);

    expect(bomb?.error).toMatchObject({ owner: "agent", kind: "timeout" });
    expect(bomb?.stopReason).toBe("timeout");
    expect(hog?.error).toMatchObject({ owner: "agent", kind: "solution-failed" });
    expect(hog?.error?.message).toMatch(/exited with 137/);
    expect(ok?.error).toBeNull();
    expect(ok?.outputs[0]?.status).toBe("collected");
    expect(await new DockerClient().listContainers([`${LABEL_RUN}=${RUN}`])).toEqual([]);
  }, 120_000);
});
