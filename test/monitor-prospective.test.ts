// The prospective choice as one turn of a configuration's model, through the real OpenAI SDK client
// against the loopback scripted server: the re-ask on the wire, and a stalled reply bounded by the
// configuration's timeout (recorded as the outcome's error, never thrown).
import { afterEach, describe, expect, it } from "vitest";
import { BuiltinAgent } from "../src/agents/builtin.ts";
import { prospectiveHook } from "../src/monitor/index.ts";
import type { LoadedTask } from "../src/task/index.ts";
import { trialBudget } from "../src/trial/index.ts";
import { agentConfig, scaffoldedTask } from "./support/agent-context.ts";
import { type ModelServer, type Script, startModelServer } from "./support/model-server.ts";

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function agentFor(script: Script, timeoutSec = 60) {
  server = await startModelServer(script);
  const config = agentConfig("chooser", {
    harness: "builtin",
    provider: "openai-compatible",
    model: "scripted-chooser",
    baseUrl: server.openaiUrl,
    apiKeyEnv: null,
    timeoutSec,
    retry: { maxRetries: 0 },
  });
  return new BuiltinAgent(config, { env: {} });
}

/** The budget of the -A trial the choice comes before, as runTrial computes it. */
const budgetOf = (agent: BuiltinAgent, task: LoadedTask) =>
  trialBudget({ limits: task.spec.limits, agent: agent.limits, sandbox: true });

describe("the prospective choice on the wire", () => {
  it("re-asks once after an unreadable reply, then reads the choice; no tools are offered", async () => {
    const agent = await agentFor([
      { text: "Either REQUEST_SPEC or ANSWER_DIRECTLY.", usage: { input: 400, output: 9 } },
      { text: "request_spec", usage: { input: 420, output: 3 } },
    ]);
    const task = scaffoldedTask();
    const chosen = await prospectiveHook(agent)(task, budgetOf(agent, task));
    expect(chosen).toMatchObject({ choice: "REQUEST_SPEC", error: null });
    // tokens of both calls: 400 + 420 in, 9 + 3 out
    expect(chosen.usage).toMatchObject({ modelCalls: 2, inputTokens: 820, outputTokens: 12 });
    expect(chosen.turns.map((t) => t.reply)).toEqual([
      "Either REQUEST_SPEC or ANSWER_DIRECTLY.",
      "request_spec",
    ]);
    const first = server!.requests[0]!.body as {
      messages: { role: string; content: string }[];
      tools?: unknown[];
    };
    expect(first.tools ?? []).toEqual([]);
    expect(first.messages).toHaveLength(1); // no system prompt: the instruction in one user turn
    expect(first.messages[0]!.content).toContain(`<task>\n${task.instruction.toString("utf8")}\n</task>`);
  });

  it("gives up on a stalled model at the configuration's timeout, with the choice unread", async () => {
    const agent = await agentFor([{ text: "DECLINE", delayMs: 20_000 }], 1);
    const started = Date.now();
    const task = scaffoldedTask();
    const chosen = await prospectiveHook(agent)(task, budgetOf(agent, task));
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(chosen.choice).toBeNull();
    expect(chosen.error).toBeTruthy();
  });

  it("refuses an agent without a model configuration", async () => {
    const { noopAgent } = await import("../src/agents/index.ts");
    expect(() => prospectiveHook(noopAgent())).toThrow(
      /needs a model configuration \(built-in loop or installed harness\); noop runs noop/,
    );
  });
});
