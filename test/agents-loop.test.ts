// The built-in tool loop end to end on the host: real SDK clients against the loopback model server,
// tools executed in a folder sandbox; stop reasons, usage, retries, infra errors, +A listing.
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AdaptiveLimits } from "../src/agents/adaptive-limit.ts";
import { BuiltinAgent } from "../src/agents/builtin.ts";
import type { AgentConfigInput } from "../src/agents/config.ts";
import { type AgentPrepareContext, AgentTimeoutError } from "../src/agents/types.ts";
import { agentConfig, conditionFiles, runContext, scaffoldedTask } from "./support/agent-context.ts";
import { DirSandbox } from "./support/dir-sandbox.ts";
import {
  lastToolResults,
  type ModelServer,
  type Script,
  type ScriptStep,
  type SeenRequest,
  startModelServer,
  turnIndex,
} from "./support/model-server.ts";

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

type Provider = "anthropic" | "openai-compatible";

async function agentFor(
  script: Script,
  provider: Provider,
  overrides: Partial<AgentConfigInput> = {},
  log?: (line: string) => void,
) {
  server = await startModelServer(script, { requireKey: "sk-loop" });
  const config = agentConfig("under-test", {
    harness: "builtin",
    provider,
    model: provider === "anthropic" ? "claude-test" : "qwen-test",
    baseUrl: provider === "anthropic" ? server.anthropicUrl : server.openaiUrl,
    apiKeyEnv: "KGATE_TEST_KEY",
    retry: { maxRetries: 3, baseDelayMs: 5, maxDelayMs: 20 },
    pricing: { inputPerMTok: 3, outputPerMTok: 15 },
    ...overrides,
  });
  return new BuiltinAgent(config, { env: { KGATE_TEST_KEY: "sk-loop" }, log });
}

/**
 * A scripted "agent" for the scaffolded demo task: read the specification; apply its 12% rate when
 * the file was there, the default (no overhead) when it was not; write the output; finish.
 */
function demoPolicy(specPath: string) {
  return (request: SeenRequest): ScriptStep => {
    const turn = turnIndex(request);
    if (turn === 0)
      return {
        text: "Reading the specification.",
        toolCalls: [{ name: "read_file", input: { path: specPath } }],
      };
    if (turn === 1) {
      const seen = lastToolResults(request).join("\n");
      const rate = /overhead rate of 12%/.test(seen) ? 1.12 : 1;
      const program = `mkdir -p output && awk -F, 'NR==1{print "item,value"; next}{printf "%s,%.2f\\n", $1, $2*${rate}}' input.csv > output/result.csv && cat output/result.csv`;
      return { toolCalls: [{ name: "bash", input: { command: program } }] };
    }
    return { text: "Done.", toolCalls: [{ name: "finish", input: { summary: "wrote output/result.csv" } }] };
  };
}

describe.each<Provider>(["anthropic", "openai-compatible"])("built-in loop over %s", (provider) => {
  it("solves the demo task under +A by reading the listed specification, then stops on finish", async () => {
    const task = scaffoldedTask();
    const sandbox = new DirSandbox(conditionFiles(task, "+A"));
    const agent = await agentFor(demoPolicy(task.spec.artefact.path), provider);
    const ctx = runContext(sandbox, { task, condition: "+A" });
    const result = await agent.run(ctx);
    expect(result.stopReason).toBe("finish");
    expect(result.error).toBeUndefined();
    expect(readFileSync(path.join(sandbox.workdir, "output/result.csv"), "utf8")).toBe(
      "item,value\nwidget,3.36\ngadget,5.60\n",
    );
    expect(result.usage.modelCalls).toBe(3);
    expect(result.usage.inputTokens).toBeGreaterThan(0);
    expect(result.usage.costUsd).toBeCloseTo(
      (result.usage.inputTokens * 3 + result.usage.outputTokens * 15) / 1e6,
      9,
    );
    const types = ctx.trajectory.events.map((e) => e.type);
    expect(types).toEqual([
      "note",
      "model",
      "tool-call",
      "tool-result",
      "model",
      "tool-call",
      "tool-result",
      "model",
      "tool-call",
      "tool-result",
      "note",
    ]);
    expect(result.artefactListed).toBe(true);
    expect(result.artefactOpened).toBe(true);
  });

  it("under -A lists no reference, sends the byte-identical instruction and applies the default", async () => {
    const task = scaffoldedTask();
    const sandbox = new DirSandbox(conditionFiles(task, "-A"));
    const agent = await agentFor(demoPolicy(task.spec.artefact.path), provider);
    const ctx = runContext(sandbox, { task, condition: "-A" });
    const result = await agent.run(ctx);
    expect(result.stopReason).toBe("finish");
    expect(result.artefactListed).toBe(false);
    expect(readFileSync(path.join(sandbox.workdir, "output/result.csv"), "utf8")).toBe(
      "item,value\nwidget,3.00\ngadget,5.00\n",
    );
    const first = server!.requests[0]!.body;
    // Anthropic requests carry text as blocks (with cache breakpoints); Chat Completions as strings
    const system =
      provider === "anthropic"
        ? (first.system as Array<{ text: string }>)[0]!.text
        : String((first.messages as Array<{ content: string }>)[0]!.content);
    expect(system).toContain("Linux sandbox");
    expect(system).not.toContain(task.spec.artefact.path);
    const userText =
      provider === "anthropic"
        ? (first.messages as Array<{ content: Array<{ text: string }> }>)[0]!.content[0]!.text
        : (first.messages as Array<{ content: string }>)[1]!.content;
    expect(userText).toBe(task.instruction.toString("utf8"));
    expect(result.artefactOpened).toBeNull();
  });
});

describe("stop reasons", () => {
  const busy: ScriptStep = { toolCalls: [{ name: "bash", input: { command: "echo busy" } }] };

  it("stops at max turns (the smaller of the configuration's and the task's)", async () => {
    const agent = await agentFor([busy], "anthropic", { maxTurns: 3 });
    const ctx = runContext(new DirSandbox(), { agent });
    const result = await agent.run(ctx);
    expect(result.stopReason).toBe("max-turns");
    expect(server!.requests).toHaveLength(3);
    expect(ctx.trajectory.events.at(-1)).toMatchObject({ kind: "stop", stopReason: "max-turns", turns: 3 });
  });

  it("stops when the token budget is spent", async () => {
    const agent = await agentFor([{ ...busy, usage: { input: 1000, output: 100 } }], "openai-compatible", {
      tokenBudget: 2500,
    });
    const result = await agent.run(runContext(new DirSandbox(), { agent }));
    expect(result.stopReason).toBe("token-budget");
    expect(result.usage.inputTokens + result.usage.outputTokens).toBe(3300);
    expect(server!.requests).toHaveLength(3);
  });

  it("stops when the output-token budget is spent, counting output only, each call's max_tokens capped at what is left", async () => {
    const agent = await agentFor([{ ...busy, usage: { input: 1000, output: 100 } }], "anthropic", {
      outputTokenBudget: 250,
      maxOutputTokens: 8192,
    });
    const result = await agent.run(runContext(new DirSandbox(), { agent }));
    expect(result.stopReason).toBe("token-budget");
    // output 100, 200 < 250 go on, 300 >= 250 stops: three calls, although 3,300 tokens in all were
    // spent (the input is not counted against this budget)
    expect(server!.requests).toHaveLength(3);
    expect(result.usage.outputTokens).toBe(300);
    // max_tokens = min(8192, 250 - spent): 250, 150, 50
    expect(server!.requests.map((r) => r.body.max_tokens)).toEqual([250, 150, 50]);
  });

  it("stops on the wall-clock timeout while waiting for a slow model", async () => {
    const agent = await agentFor([busy, { text: "too late", delayMs: 10_000 }], "anthropic", {
      timeoutSec: 1,
    });
    const started = Date.now();
    const result = await agent.run(runContext(new DirSandbox(), { agent }));
    expect(result.stopReason).toBe("timeout");
    expect(result.error).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("stops on timeout when the runner aborts the signal with the task's timeout", async () => {
    const agent = await agentFor([{ text: "slow", delayMs: 10_000 }], "openai-compatible");
    const controller = new AbortController();
    setTimeout(() => controller.abort(new AgentTimeoutError("runner timeout")), 200);
    const result = await agent.run(runContext(new DirSandbox(), { signal: controller.signal }));
    expect(result.stopReason).toBe("timeout");
    expect(result.error).toBeUndefined();
  });

  it("a cancelled run (any other abort reason) is cancelled, never a timeout", async () => {
    const agent = await agentFor([{ text: "slow", delayMs: 10_000 }], "anthropic");
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("user pressed Ctrl-C")), 200);
    const result = await agent.run(runContext(new DirSandbox(), { signal: controller.signal }));
    expect(result.stopReason).toBe("cancelled");
    expect(result.error).toEqual({ kind: "cancelled", owner: "cancelled", message: "user pressed Ctrl-C" });
  });

  it("abandons a running bash command when the runner aborts", async () => {
    const agent = await agentFor(
      [{ toolCalls: [{ name: "bash", input: { command: "sleep 30" } }] }],
      "anthropic",
    );
    const controller = new AbortController();
    setTimeout(() => controller.abort(new AgentTimeoutError("runner timeout")), 300);
    const started = Date.now();
    const result = await agent.run(runContext(new DirSandbox(), { signal: controller.signal }));
    expect(result.stopReason).toBe("timeout");
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("treats a reply without tool calls as finishing, and nudges a reply cut off at max tokens", async () => {
    const agent = await agentFor(
      [{ text: "half an ans", truncated: true }, { text: "wer. Done." }],
      "anthropic",
    );
    const ctx = runContext(new DirSandbox());
    const result = await agent.run(ctx);
    expect(result.stopReason).toBe("finish");
    const last = server!.requests[1]!.body.messages as Array<{ role: string; content: unknown }>;
    expect(last.at(-1)).toMatchObject({
      role: "user",
      content: [expect.objectContaining({ type: "text", text: expect.stringContaining("cut off") })],
    });
  });
});

describe("tools", () => {
  it("caps bash output and enforces the bash timeout, reporting both to the model", async () => {
    const agent = await agentFor(
      [
        { toolCalls: [{ name: "bash", input: { command: "head -c 5000 /dev/zero | tr '\\0' x" } }] },
        { toolCalls: [{ name: "bash", input: { command: "sleep 20", timeout_sec: 1 } }] },
        { toolCalls: [{ name: "read_file", input: { path: "../../etc/passwd" } }] },
        { toolCalls: [{ name: "nope", input: {} }] },
        { toolCalls: [{ name: "finish", input: {} }] },
      ],
      "openai-compatible",
      { tools: { outputCapBytes: 1000, bashTimeoutSec: 30 } },
    );
    const ctx = runContext(new DirSandbox());
    const result = await agent.run(ctx);
    expect(result.stopReason).toBe("finish");
    const results = ctx.trajectory.events.filter((e) => e.type === "tool-result");
    expect(results[0]).toMatchObject({ truncated: true, isError: false });
    expect(String(results[0]!.output)).toContain("truncated at 1000 bytes");
    expect(String(results[0]!.output).length).toBeLessThan(1200);
    expect(results[1]).toMatchObject({ timedOut: true, isError: true });
    expect(results[2]).toMatchObject({ isError: true, reason: "outside-workdir" });
    expect(String(results[3]!.output)).toContain('unknown tool "nope"');
  });
});

describe("provider failures", () => {
  it("retries a 429 storm with back-off, logs each retry, then succeeds", async () => {
    const logged: string[] = [];
    const agent = await agentFor(
      [{ status: 429 }, { status: 429 }, { status: 429 }, { toolCalls: [{ name: "finish", input: {} }] }],
      "anthropic",
      {},
      (line) => logged.push(line),
    );
    const ctx = runContext(new DirSandbox());
    const result = await agent.run(ctx);
    expect(result.stopReason).toBe("finish");
    expect(result.usage.modelCalls).toBe(1);
    const retries = ctx.trajectory.events.filter((e) => e.kind === "retry");
    expect(retries.map((e) => [e.retry, e.failure, e.status])).toEqual([
      [1, "rate-limit", 429],
      [2, "rate-limit", 429],
      [3, "rate-limit", 429],
    ]);
    expect(logged).toHaveLength(3);
    expect(logged[0]).toMatch(/^rate-limit \(429\), retry 1\/3 in \d+ ms$/);
  });

  it("turns a persistent 500 into an infra error, not an agent failure", async () => {
    const agent = await agentFor([{ status: 500 }], "openai-compatible");
    const ctx = runContext(new DirSandbox());
    const result = await agent.run(ctx);
    expect(result.stopReason).toBe("error");
    expect(result.error).toMatchObject({ owner: "provider", kind: "provider-outage" });
    expect(server!.requests).toHaveLength(4);
    expect(ctx.trajectory.events.filter((e) => e.type === "error")).toHaveLength(1);
  });

  it("reports a missing key as an infra configuration error before calling the model", async () => {
    server = await startModelServer([{ text: "never" }]);
    const config = agentConfig("keyless", {
      harness: "builtin",
      provider: "anthropic",
      model: "m",
      baseUrl: server.anthropicUrl,
      apiKeyEnv: "KGATE_UNSET_KEY",
    });
    const agent = new BuiltinAgent(config, { env: {} });
    await expect(agent.prepare({ limits: new AdaptiveLimits() } as AgentPrepareContext)).rejects.toThrow(
      /KGATE_UNSET_KEY/,
    );
    const result = await agent.run(runContext(new DirSandbox()));
    expect(result.error).toMatchObject({ owner: "provider", kind: "config" });
    expect(server.requests).toHaveLength(0);
  });
});
