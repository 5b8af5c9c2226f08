// `read_file` reads as the sandbox user (red-team item 7): root-only files, links to them and absolute
// paths see exactly what `cat` in the agent's shell sees, in a real container. The red team's steps.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runTool, type ToolLimits } from "../src/agents/tools.ts";
import type { TrialSandbox } from "../src/sandbox/index.ts";
import { LABEL_RUN } from "../src/sandbox/index.ts";
import { providerSandbox } from "./support/engine.ts";
import { redteamFixture } from "./support/redteam.ts";
import { sandboxImage } from "./support/sandbox.ts";

const RUN = `test-hostile-readfile-${process.pid}`;
let box: TrialSandbox;
beforeAll(async () => {
  box = await providerSandbox({
    image: sandboxImage(),
    limits: { cpus: 0.5, memoryMb: 256, pids: 64 },
    labels: { kgate: "1", [LABEL_RUN]: RUN },
  });
});
afterAll(async () => {
  await box?.remove();
});

const limits: ToolLimits = { bashTimeoutSec: 30, outputCapBytes: 64 * 1024, remainingSec: () => 300 };
let n = 0;
const call = (name: string, input: Record<string, unknown>) =>
  runTool(box, { type: "tool-call", id: `c${n++}`, name, input }, limits);

interface Step {
  name: string;
  input: Record<string, unknown>;
}

describe("read_file as the agent user", () => {
  it("replays the red team's steps-readroot.json: nothing root-only is read, nothing is written", async () => {
    const steps = JSON.parse(redteamFixture("steps-readroot.json")) as Step[];
    const outcomes = [];
    for (const step of steps) outcomes.push(await call(step.name, step.input));
    // bash: cat /etc/shadow is denied to uid 1000.
    expect(outcomes[0]!.output).toContain("Permission denied");
    const [absolute, viaLink, relative, rootHome] = outcomes.slice(1, 5);
    expect(absolute).toMatchObject({ isError: true });
    expect(absolute!.output).toMatch(/Permission denied/);
    expect(viaLink).toMatchObject({ isError: true });
    expect(viaLink!.output).toMatch(/Permission denied/);
    expect(relative).toMatchObject({ isError: true, details: { reason: "outside-workdir" } });
    expect(rootHome).toMatchObject({ isError: true });
    expect(rootHome!.output).toMatch(/Permission denied|does not exist/);
    for (const o of outcomes) expect(o.output).not.toMatch(/^root:/m);
    // Both writes outside the writable volumes are refused.
    for (const w of outcomes.slice(5)) expect(w).toMatchObject({ isError: true });
    const etc = await box.exec(["bash", "-c", "ls /etc/evil 2>&1"]);
    expect(etc.exitCode).not.toBe(0);
  });

  it("reads a file the agent can read, and refuses one the agent made unreadable to itself", async () => {
    await box.exec([
      "bash",
      "-c",
      "printf 'a\\nb\\nc\\n' > mine.txt; printf 'x' > locked.txt; chmod 000 locked.txt",
    ]);
    const mine = await call("read_file", { path: "mine.txt", start_line: 2, max_lines: 1 });
    expect(mine).toMatchObject({ isError: false, output: "b" });
    const locked = await call("read_file", { path: "locked.txt" });
    expect(locked).toMatchObject({ isError: true });
    expect(locked.output).toContain("Permission denied");
    const folder = await call("read_file", { path: "/home/agent" });
    expect(folder.output).toContain("is not a regular file");
  });

  it("survives folders swapped while it reads (crash.sh): every read is a result", async () => {
    const started = await box.exec(["bash", "-c", redteamFixture("crash.sh")], {
      timeoutSec: 30,
    });
    expect(started.exitCode).toBe(0);
    for (let i = 0; i < 20; i++) {
      const r = await call("read_file", { path: "output/result.csv", max_lines: 2 });
      expect(r.output).toMatch(/^item,value\n|^error: /);
    }
  }, 60_000);
});
