// The failure taxonomy through real trials: a cancelled built-in-loop trial is cancelled (not a
// timeout, not counted), verifiers that loop or throw end with their own kinds without stalling
// the run, a background writer of the agent cannot change what is collected after stop, and the
// engine never retries kgate's own errors.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type Agent, BuiltinAgent } from "../src/agents/index.ts";
import { outcomeOf, ZERO_USAGE } from "../src/record/index.ts";
import { sha256 } from "../src/task/index.ts";
import { agentInfoOf, runTrial, TrialEngine } from "../src/trial/index.ts";
import { agentConfig } from "./support/agent-context.ts";
import { sandboxTarget } from "./support/engine.ts";
import { type ModelServer, startModelServer } from "./support/model-server.ts";
import { type DemoTask, demoTask } from "./support/sandbox.ts";

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

let counter = 0;
function trialOf(demo: DemoTask, agent: Agent, extra: Partial<Parameters<typeof runTrial>[0]> = {}) {
  const runId = `test-engine-${process.pid}-${counter++}`;
  return runTrial({
    ...demo,
    agent,
    condition: "+A",
    runId,
    runDir: path.join(demo.paths.runs, runId),
    index: 0,
    ...sandboxTarget(),
    ...extra,
  });
}

/** An agent that runs one shell command in the sandbox, then finishes. */
function shellAgent(command: string): Agent {
  return {
    name: "shell",
    harness: "test",
    model: null,
    digest: sha256(command),
    async run(ctx) {
      await ctx.sandbox.exec(["bash", "-c", command], { timeoutSec: 30 });
      return { stopReason: "finish", usage: ZERO_USAGE };
    },
  };
}

describe("cancelling a built-in-loop trial", () => {
  it("records it as cancelled, never as a timeout or the agent's failure", async () => {
    // The model takes 20 s to answer; the run is cancelled after 1.5 s (as Ctrl-C does).
    server = await startModelServer([{ text: "too late", delayMs: 20_000 }]);
    const agent = new BuiltinAgent(
      agentConfig("scripted", {
        harness: "builtin",
        provider: "anthropic",
        model: "claude-scripted",
        baseUrl: server.anthropicUrl,
        apiKeyEnv: "KGATE_CANCEL_KEY",
      }),
      { env: { KGATE_CANCEL_KEY: "sk-test" } },
    );
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("SIGINT")), 1500);
    const started = Date.now();
    const record = await trialOf(demoTask(), agent, { signal: controller.signal });
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(record.stopReason).toBe("cancelled");
    expect(record.error).toMatchObject({ kind: "cancelled", owner: "cancelled" });
    expect(outcomeOf(record)).toBe("infra");
    expect(record.verdict.status).toBe("unverified");
  });
});

describe("verifiers under a real time limit", () => {
  const withVerifier = (body: string): DemoTask => {
    const demo = demoTask();
    writeFileSync(
      path.join(demo.paths.verifiers, "demo.ts"),
      `export default { conventions: { artefact: {}, default: {}, variants: { perturbed: {}, compressed: {} } }, solve() { ${body} } };\n`,
    );
    return demo;
  };

  it("a verifier that loops forever is killed at the limit: the trial fails as verifier-timeout (format)", async () => {
    const started = Date.now();
    const record = await trialOf(withVerifier("for (;;) {}"), shellAgent("true"), {
      phases: { verify: 3000 },
    });
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(record.error).toMatchObject({ kind: "verifier-timeout", owner: "verifier" });
    expect(record.verdict).toMatchObject({ status: "fail", attribution: "format" });
    expect(outcomeOf(record)).toBe("fail");
  });

  it("a verifier whose reference answer throws is the task's bug: verifier-broken, left out of rates", async () => {
    const record = await trialOf(withVerifier('throw new Error("bad column");'), shellAgent("true"));
    expect(record.error).toMatchObject({ kind: "verifier-broken", owner: "verifier" });
    expect(record.error?.message).toContain("bad column");
    expect(record.verdict.status).toBe("unverified");
    expect(outcomeOf(record)).toBe("infra");
  });

  it("a verifier that dies on the agent's output (its worker runs out of memory) fails it as verifier-crash", async () => {
    // The verifier builds an ever-growing array only when it meets the agent's output file.
    const demo = withVerifier("return {};");
    writeFileSync(
      path.join(demo.paths.verifiers, "demo.ts"),
      [
        "const grow = () => { const a = []; for (;;) a.push(new Array(1e6).fill(1)); };",
        "export default {",
        "  conventions: { artefact: {}, default: {}, variants: { perturbed: {}, compressed: {} } },",
        '  solve() { return { "output/result.csv": [{ item: "a", value: 1 }] }; },',
        '  rubric: { "output/result.csv": { criteria: [{ name: "grows", check: (actual) => { if (actual !== undefined) grow(); return true; } }] } },',
        "};",
        "",
      ].join("\n"),
    );
    const record = await trialOf(demo, shellAgent("mkdir -p output && echo item,value > output/result.csv"));
    expect(record.error).toMatchObject({ kind: "verifier-crash", owner: "verifier" });
    expect(record.verdict).toMatchObject({ status: "fail", attribution: "format" });
    expect(outcomeOf(record)).toBe("fail");
  });
});

describe("outputs are collected after every process stopped", () => {
  it("a background writer of the agent cannot append after the stop phase", async () => {
    // The agent leaves a loop behind that appends the clock (ms since the epoch) every 10 ms, and
    // exits once the loop has written 20 lines (a count, not a time: a loaded machine runs it slower).
    const loop =
      "mkdir -p output; (while :; do date +%s%3N >> output/result.csv; sleep 0.01; done) >/dev/null 2>&1 & " +
      'until [ "$(wc -l < output/result.csv 2>/dev/null || echo 0)" -ge 20 ]; do sleep 0.05; done';
    const demo = demoTask();
    const record = await trialOf(demo, shellAgent(loop), { verify: null });
    const stop = record.phases.stop!;
    const copyOut = record.phases.copyOut!;
    expect(Date.parse(copyOut.startedAt)).toBeGreaterThanOrEqual(Date.parse(stop.finishedAt));
    expect(record.outputs[0]?.status).toBe("collected");
    const trialDir = path.dirname(path.join(demo.paths.runs, record.runId, record.trajectory!));
    const saved = readFileSync(path.join(trialDir, "outputs", "output", "result.csv"), "utf8");
    const stamps = saved.trim().split("\n").map(Number);
    expect(stamps.length).toBeGreaterThanOrEqual(20);
    // Every line was written before the stop phase ended: nothing of the loop survived it. A stamp is
    // read before its line is written, so it is earlier than the stop (one clock: the host's kernel);
    // the 5 ms are date's rounding against the record's millisecond ISO times, not a load margin.
    expect(Math.max(...stamps)).toBeLessThanOrEqual(Date.parse(stop.finishedAt) + 5);
  });
});

describe("the engine and kgate's own errors", () => {
  it("records a runner that throws as internal, once: no retry, excluded from rates", async () => {
    const demo = demoTask();
    const runDir = path.join(demo.paths.runs, "internal");
    let calls = 0;
    const engine = new TrialEngine({
      runId: "internal",
      runDir,
      concurrency: 2,
      retries: 3,
      runner: async () => {
        calls += 1;
        throw new TypeError("Cannot read properties of undefined (reading 'x')");
      },
    });
    const agent = agentInfoOf(shellAgent("true"));
    const [record] = await engine.runAll([{ task: demo.task, condition: "+A", agent, index: 0 }]);
    expect(calls).toBe(1);
    expect(record?.error).toMatchObject({ kind: "internal", owner: "kgate" });
    expect(record?.error?.stack).toMatch(/TypeError: Cannot read properties/);
    expect(outcomeOf(record!)).toBe("infra");
    expect(engine.internal).toEqual([record]);
  });

  it("retries a sandbox failure as the taxonomy says, with a new attempt each time", async () => {
    const demo = demoTask();
    const broken: Agent = {
      ...shellAgent("true"),
      prepare: async () => ({ image: "kgate-test-no-such-image:0" }),
    };
    const runDir = path.join(demo.paths.runs, "retried");
    const { provider, image } = sandboxTarget();
    const engine = new TrialEngine({
      runId: "retried",
      runDir,
      concurrency: 1,
      retries: 2,
      runner: (job, signal) =>
        runTrial({
          ...demo,
          ...job,
          agent: broken,
          provider,
          image,
          requirements: { image: "kgate-test-no-such-image:0" },
          signal,
        }),
    });
    const [record] = await engine.runAll([
      { task: demo.task, condition: "+A", agent: agentInfoOf(broken), index: 0 },
    ]);
    // 1 + 2 retries = 3 attempts, each its own trial id and trajectory folder.
    expect(engine.written.map((r) => r.trialId)).toEqual([
      "demo.with-A.shell.0",
      "demo.with-A.shell.0.retry1",
      "demo.with-A.shell.0.retry2",
    ]);
    expect(record).toMatchObject({ attempt: 3, error: { owner: "sandbox" } });
  });
});
