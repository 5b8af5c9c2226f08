// One trial end to end in a real container: conditions, outputs, records, verification hand-off,
// timeouts and infrastructure failures recorded rather than thrown.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { abortOutcome, noopAgent, oracleAgent } from "../src/agents/index.ts";
import type { Agent, AgentRunContext } from "../src/agents/types.ts";
import { UNVERIFIED, ZERO_USAGE } from "../src/record/index.ts";
import { DockerClient } from "../src/sandbox/docker/client.ts";
import { LABEL_RUN } from "../src/sandbox/index.ts";
import { type Condition, sha256 } from "../src/task/index.ts";
import { DEFAULT_PHASE_BOUNDS, readTrialRecords, runTrial, type VerifyTrial } from "../src/trial/index.ts";
import { engineTrials, sandboxTarget } from "./support/engine.ts";
import { type DemoTask, demoTask } from "./support/sandbox.ts";

/** Checks output/result.csv against values recomputed here from input.csv (quantity x 1.12). */
const verifyDemo: VerifyTrial = async (task, outputs) => {
  const input = readFileSync(task.environment.find((f) => f.path === "input.csv")!.absPath, "utf8");
  const expected = input
    .trim()
    .split("\n")
    .slice(1)
    .map((line) => {
      const [item, quantity] = line.split(",");
      return `${item},${(Number(quantity) * 1.12).toFixed(2)}`;
    });
  const out = outputs.find((o) => o.path === "output/result.csv");
  const actual = out?.bytes?.toString("utf8").trim().split(/\r?\n/).slice(1) ?? [];
  const passed = out?.status === "collected" && JSON.stringify(actual) === JSON.stringify(expected);
  return {
    status: passed ? "pass" : "fail",
    reward: passed ? 1 : 0,
    score: passed ? 1 : 0,
    criteria: [{ name: "result.csv matches", passed, detail: out?.reason }],
    attribution: passed ? null : "other",
  };
};

let counter = 0;
function trial(
  demo: DemoTask,
  agent: Agent,
  condition: Condition,
  extra: Partial<Parameters<typeof runTrial>[0]> = {},
) {
  const runId = `test-trial-${process.pid}-${counter++}`;
  const runDir = path.join(demo.paths.runs, runId);
  return runTrial({ ...demo, agent, condition, runId, runDir, index: 0, ...sandboxTarget(), ...extra });
}

/** An agent that runs a script in the sandbox and keeps its result for the test to inspect. */
function probe(script: (ctx: AgentRunContext) => Promise<void>): Agent {
  return {
    name: "probe",
    harness: "test",
    model: null,
    digest: sha256("probe"),
    async run(ctx) {
      await script(ctx);
      return { stopReason: "finish", usage: ZERO_USAGE };
    },
  };
}

describe("a trial with the oracle agent", () => {
  it("collects the outputs, verifies them on the host and writes record, trajectory and outputs", async () => {
    const demo = demoTask();
    const record = await trial(demo, oracleAgent(), "+A", { verify: verifyDemo });
    expect(record.error).toBeNull();
    expect(record.stopReason).toBe("finish");
    expect(record.verdict.status).toBe("pass");
    expect(record.outputs).toEqual([
      expect.objectContaining({ path: "output/result.csv", status: "collected" }),
    ]);
    expect(Object.keys(record.phases)).toEqual([
      "create",
      "copyIn",
      "agent",
      "stop",
      "copyOut",
      "remove",
      "verify",
    ]);
    expect(record.artefactDigest).toBe(demo.task.artefact.sha256);
    expect(record.task.digests.instruction).toBe(demo.task.digests.instruction);
    const pkg = JSON.parse(readFileSync(path.resolve(import.meta.dirname, "..", "package.json"), "utf8"));
    expect(record.provenance).toEqual({
      kgateVersion: pkg.version,
      sandboxProvider: "docker",
      host: process.env.DOCKER_HOST ?? "local",
      sandboxImage: sandboxTarget().image.id,
      sandboxBase: null,
      harnessVersion: "oracle@1",
      // The scaffold's memoryMb 1024 and no diskMb: 1024 / 2 = 512 MiB per writable folder.
      diskCap: { mechanism: "tmpfs-volume", mb: 512 },
    });

    const runDir = path.join(demo.paths.runs, record.runId);
    const { records, problems } = readTrialRecords(runDir);
    expect(problems).toEqual([]);
    expect(records).toEqual([record]);
    const saved = readFileSync(
      path.join(runDir, "trials", record.trialId, "outputs", "output", "result.csv"),
    );
    expect(sha256(saved)).toBe(record.outputs[0]?.sha256);
    const trajectory = readFileSync(path.join(runDir, record.trajectory!), "utf8").trim().split("\n");
    expect(trajectory.map((l) => JSON.parse(l).type)).toEqual(["note", "tool-call", "tool-result"]);
  });

  it("with verification turned off (verify: null) the verdict is unverified", async () => {
    const record = await trial(demoTask(), oracleAgent(), "-A", { verify: null });
    expect(record.verdict).toEqual(UNVERIFIED);
    expect(record.artefactDigest).toBeNull();
  });

  it("a failing solution is an agent failure with the solution's stderr", async () => {
    const demo = demoTask({ solution: "echo 'no such table' >&2; exit 7\n" });
    const record = await trial(demo, oracleAgent(), "+A", { verify: verifyDemo });
    expect(record.error).toEqual({
      owner: "agent",
      kind: "solution-failed",
      message: "the solution exited with 7: no such table",
    });
    expect(record.verdict.status).toBe("fail");
  });
});

describe("the noop control", () => {
  it("does nothing, so its outputs are missing and its verdict fails", async () => {
    const record = await trial(demoTask(), noopAgent(), "+A", { verify: verifyDemo });
    expect(record.error).toBeNull();
    expect(record.outputs).toEqual([
      { path: "output/result.csv", status: "missing", reason: "folder output/ does not exist" },
    ]);
    expect(record.verdict.status).toBe("fail");
  });
});

describe("conditions inside the container", () => {
  const grepCanary = (found: string[]) =>
    probe(async (ctx) => {
      const canary = ctx.task.artefact.canary!;
      const result = await ctx.sandbox.exec(
        [
          "bash",
          "-c",
          `grep -rlsF --devices=skip --exclude-dir=proc --exclude-dir=sys --exclude-dir=dev -- "${canary}" / || true`,
        ],
        { timeoutSec: 60, maxOutputBytes: 100_000 },
      );
      found.push(...result.stdout.split("\n").filter(Boolean));
    });

  it("under -A no file in the container contains the artefact's canary GUID", async () => {
    const demo = demoTask();
    const found: string[] = [];
    const record = await trial(demo, grepCanary(found), "-A");
    expect(record.error).toBeNull();
    expect(found).toEqual([]);
    expect(record.canaryLeak).toBe(false);
  });

  it("under +A the same search finds exactly the artefact (the search works)", async () => {
    const demo = demoTask();
    const found: string[] = [];
    await trial(demo, grepCanary(found), "+A");
    expect(found).toEqual([`/home/agent/work/${demo.task.spec.artefact.path}`]);
  });

  it("under +A the artefact is byte-identical to the source; a variant replaces it; the instruction never changes", async () => {
    const demo = demoTask();
    const artefact: Record<string, string | null> = {};
    const instruction: Record<string, string> = {};
    const reader = (key: string) =>
      probe(async (ctx) => {
        instruction[key] = sha256(ctx.instruction);
        artefact[key] = ctx.artefact ? sha256(await ctx.sandbox.readFile(ctx.artefact.path)) : null;
      });
    await trial(demo, reader("+A"), "+A");
    await trial(demo, reader("-A"), "-A");
    await trial(demo, reader("variant"), "variant:perturbed");
    expect(artefact["+A"]).toBe(sha256(readFileSync(demo.task.artefact.absPath)));
    expect(artefact.variant).toBe(sha256(readFileSync(demo.task.variants[0]!.absPath)));
    expect(artefact.variant).not.toBe(artefact["+A"]);
    expect(artefact["-A"]).toBeNull();
    const source = sha256(readFileSync(path.join(demo.task.dir, "instruction.md")));
    expect(Object.values(instruction)).toEqual([source, source, source]);
  });
});

describe("timeouts and failures are recorded, never thrown", () => {
  it("an agent over the task's timeoutSec is an agent timeout, and what it wrote is still collected", async () => {
    const demo = demoTask({
      spec: (s) => {
        s.limits = { ...s.limits, timeoutSec: 2 };
      },
      solution: "mkdir -p output; echo 'item,value' > output/result.csv; sleep 60\n",
    });
    const record = await trial(demo, oracleAgent(), "+A");
    expect(record.stopReason).toBe("timeout");
    expect(record.error).toMatchObject({ owner: "agent", kind: "timeout" });
    expect(record.outputs[0]?.status).toBe("collected");
    expect(record.phases.agent!.durationMs).toBeLessThan(20_000);
  });

  it("the trial's budget bounds the agent by its configuration's tighter wall clock, sets the sandbox's own deadline, and is recorded", async () => {
    const demo = demoTask(); // the scaffold's limits: 900 s, 500,000 tokens, 50 turns
    let pid1 = "";
    const agent: Agent = {
      ...probe(async () => {}),
      limits: { timeoutSec: 2, tokenBudget: 1000, maxTurns: 5 },
      async run(ctx) {
        pid1 = (await ctx.sandbox.exec(["bash", "-c", "tr '\\0' ' ' < /proc/1/cmdline"])).stdout;
        await ctx.sandbox.exec(["sleep", "60"], { signal: ctx.signal });
        return {
          ...(ctx.signal.aborted ? abortOutcome(ctx.signal) : { stopReason: "finish" }),
          usage: ZERO_USAGE,
        };
      },
    };
    const record = await trial(demo, agent, "+A", { verify: null });
    // the configuration's 2 s, not the task's 900 s, ends the agent phase
    expect(record.stopReason).toBe("timeout");
    expect(record.error).toMatchObject({ owner: "agent", kind: "timeout" });
    expect(record.budget).toEqual({
      wallClockSec: 2,
      tokens: 1000,
      turns: 5,
      outputTokens: null,
      // 2 s of agent and the 600 s the sandbox outlives it by (the default phases need only 285 s)
      sandboxDeadlineSec: 602,
      phases: DEFAULT_PHASE_BOUNDS,
    });
    // PID 1 of the sandbox ends itself at the budget's deadline
    expect(pid1).toContain("end=$((SECONDS+602))");
  });

  it("kgate.config.json's trial.phaseBoundsSec reaches every trial of a run (and its record)", async () => {
    const demo = demoTask();
    writeFileSync(
      demo.paths.config,
      JSON.stringify({ trial: { phaseBoundsSec: { copyOut: 900, agentGrace: 5 } } }),
    );
    const runId = `test-trial-phases-${process.pid}`;
    const [record] = await engineTrials({
      ...demo,
      agent: oracleAgent(),
      condition: "+A",
      runId,
      runDir: path.join(demo.paths.runs, runId),
      n: 1,
      verify: null,
    });
    expect(record!.error).toBeNull();
    expect(record!.budget!.phases).toEqual({ ...DEFAULT_PHASE_BOUNDS, copyOut: 900_000, agentGrace: 5000 });
    // 900 s of agent (the oracle has no limits of its own), then 60 + 60 + 5 + 30 + 900 = 1055 s of
    // phases that need the sandbox, over the 600 s floor
    expect(record!.budget!.sandboxDeadlineSec).toBe(900 + 1055);
  });

  it("a Docker failure is an infra error; runTrials retries it once, and nothing is left behind", async () => {
    const demo = demoTask();
    const runId = `test-trial-infra-${process.pid}`;
    const seen: string[] = [];
    const broken: Agent = {
      ...oracleAgent(),
      prepare: async () => ({ image: "kgate-test-no-such-image:0" }),
    };
    const records = await engineTrials({
      ...demo,
      agent: broken,
      condition: "+A",
      runId,
      runDir: path.join(demo.paths.runs, runId),
      ...sandboxTarget(),
      n: 1,
      onRecord: (r) => seen.push(r.trialId),
    });
    expect(seen).toEqual(["demo.with-A.oracle.0", "demo.with-A.oracle.0.retry1"]);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      attempt: 2,
      stopReason: "error",
      error: { owner: "sandbox", kind: "sandbox" },
    });
    expect(records[0]?.error?.message).toMatch(/no such image|kgate-test-no-such-image/i);
    expect(readTrialRecords(path.join(demo.paths.runs, runId)).records).toHaveLength(2);
  });

  it("an agent that throws is kgate's internal error (with its stack), not an agent failure", async () => {
    const record = await trial(
      demoTask(),
      probe(async () => {
        throw new Error("harness bug");
      }),
      "+A",
    );
    expect(record.error).toMatchObject({ owner: "kgate", kind: "internal", message: "harness bug" });
    expect(record.error?.stack).toMatch(/^Error: harness bug\n\s+at /);
  });

  it("a cancelled trial is recorded as cancelled and its container is removed", async () => {
    const demo = demoTask({ solution: "sleep 60\n" });
    const controller = new AbortController();
    const runId = `test-trial-cancel-${process.pid}`;
    const pending = runTrial({
      ...demo,
      agent: oracleAgent(),
      condition: "+A",
      runId,
      runDir: path.join(demo.paths.runs, runId),
      index: 0,
      ...sandboxTarget(),
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(new Error("user pressed Ctrl-C")), 1500);
    const record = await pending;
    expect(record.error).toEqual({ owner: "cancelled", kind: "cancelled", message: "user pressed Ctrl-C" });
    expect(record.stopReason).toBe("cancelled");
    expect(await new DockerClient().listContainers([`${LABEL_RUN}=${runId}`])).toEqual([]);
    expect(existsSync(path.join(demo.paths.runs, runId, "trials.jsonl"))).toBe(true);
  });
});
