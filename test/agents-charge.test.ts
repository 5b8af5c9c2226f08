// Every model call of the built-in loop is charged, whatever ends it (issue 40's principle where kgate
// is the client): a call cut by the agent's timeout or by Ctrl-C, and the calls of an agent the trial
// abandons, through the real SDKs against the loopback model server holding its reply past the end.
import { afterEach, describe, expect, it } from "vitest";
import { BuiltinAgent } from "../src/agents/builtin.ts";
import type { AgentConfigInput } from "../src/agents/config.ts";
import type { ChatModel } from "../src/agents/providers/types.ts";
import { AgentTimeoutError } from "../src/agents/types.ts";
import { agentPhase } from "../src/trial/agent-phase.ts";
import { agentConfig, runContext } from "./support/agent-context.ts";
import { DirSandbox } from "./support/dir-sandbox.ts";
import {
  type ModelServer,
  type ScriptStep,
  type SeenRequest,
  startModelServer,
} from "./support/model-server.ts";

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

type Provider = "anthropic" | "openai-compatible";
const NEVER = new Promise<void>(() => {});
/** The first call is answered (1,000 tokens in, 100 out, a bash call); the second is held until the server closes. */
const FIRST: ScriptStep = {
  toolCalls: [{ name: "bash", input: { command: "echo busy" } }],
  usage: { input: 1000, output: 100 },
};
const CAP = 2000;

/** A server whose second request runs `onHeld` as it arrives and is then never answered. */
async function agentFor(provider: Provider, onHeld: () => void, overrides: Partial<AgentConfigInput> = {}) {
  server = await startModelServer((_: SeenRequest, index: number) => {
    if (index === 0) return FIRST;
    onHeld();
    return { text: "never sent", hold: NEVER };
  });
  const config = agentConfig("charged", {
    harness: "builtin",
    provider,
    model: "m",
    baseUrl: provider === "anthropic" ? server.anthropicUrl : server.openaiUrl,
    apiKeyEnv: "KGATE_TEST_KEY",
    retry: { maxRetries: 0, baseDelayMs: 1, maxDelayMs: 1 },
    // dearest rates: input 3 (cache reads and writes default to the input price), output 15
    pricing: { inputPerMTok: 3, outputPerMTok: 15 },
    maxOutputTokens: CAP,
    ...overrides,
  });
  return config;
}

/**
 * What the held call must have been charged: 100 + 2,000 output tokens (the answered call's and the
 * held call's whole cap), and as input 1,000 plus the held call's input bound, which is at least what
 * the loopback server bills a request (a token per 4 bytes of its body).
 */
function expectHeldCallCharged(usage: {
  inputTokens: number;
  outputTokens: number;
  modelCalls: number;
  callsChargedAtReservation: number;
  costUsd: number | null;
}) {
  expect(usage.modelCalls).toBe(2);
  expect(usage.callsChargedAtReservation).toBe(1);
  expect(usage.outputTokens).toBe(100 + CAP);
  const heldBound = usage.inputTokens - 1000;
  const billedIfAnswered = Math.ceil(JSON.stringify(server!.requests[1]!.body).length / 4);
  expect(heldBound).toBeGreaterThanOrEqual(billedIfAnswered);
  // (1,000 x 3 + 100 x 15) / 1e6 = 0.0045 for the answered call; (bound x 3 + 2,000 x 15) / 1e6 for the held one
  expect(usage.costUsd).toBeCloseTo(0.0045 + (heldBound * 3 + CAP * 15) / 1e6, 9);
}

/** The answered call alone, as the provider reported it. */
const REPORTED = {
  inputTokens: 1000,
  outputTokens: 100,
  modelCalls: 1,
  callsChargedAtReservation: 0,
  costUsd: 0.0045,
};

describe.each<Provider>(["anthropic", "openai-compatible"])("the built-in loop over %s", (provider) => {
  it("charges a call cut by the agent's timeout at its reservation", async () => {
    const controller = new AbortController();
    const config = await agentFor(provider, () =>
      controller.abort(new AgentTimeoutError("the agent did not finish within 60 s")),
    );
    const agent = new BuiltinAgent(config, { env: { KGATE_TEST_KEY: "k" } });
    const result = await agent.run(runContext(new DirSandbox(), { signal: controller.signal }));
    expect(result.stopReason).toBe("timeout");
    expectHeldCallCharged(result.usage);
    expect(result.reportedUsage).toMatchObject(REPORTED);
  });

  it("charges a call cut by Ctrl-C at its reservation", async () => {
    const controller = new AbortController();
    const config = await agentFor(provider, () => controller.abort(new Error("user pressed Ctrl-C")));
    const agent = new BuiltinAgent(config, { env: { KGATE_TEST_KEY: "k" } });
    const ctx = runContext(new DirSandbox(), { signal: controller.signal });
    const result = await agent.run(ctx);
    expect(result.stopReason).toBe("cancelled");
    expectHeldCallCharged(result.usage);
    expect(ctx.trajectory.events.at(-1)).toMatchObject({
      kind: "stop",
      usage: { callsChargedAtReservation: 1 },
    });
  });
});

describe("the agent phase", () => {
  /** The real SDK's model, but deaf to the abort (a client that keeps waiting): the phase must abandon the agent. */
  function deaf(model: ChatModel): ChatModel {
    return {
      provider: model.provider,
      model: model.model,
      complete: (r) => model.complete({ ...r, signal: undefined }),
    };
  }

  it("charges an abandoned agent for every call it made, the open one at its reservation", async () => {
    const cancel = new AbortController();
    const config = await agentFor("anthropic", () => cancel.abort(new Error("user pressed Ctrl-C")));
    const probe = new BuiltinAgent(config, { env: { KGATE_TEST_KEY: "k" } });
    const agent = new BuiltinAgent(config, {
      env: { KGATE_TEST_KEY: "k" },
      model: deaf(await probe.chatModel()),
    });
    const { signal: _, ...context } = runContext(new DirSandbox(), { agent, phases: { agentGrace: 50 } });
    const outcome = await agentPhase({ agent, context, signal: cancel.signal });
    expect(outcome.stopReason).toBe("cancelled");
    expectHeldCallCharged(outcome.usage);
    expect(outcome.reportedUsage).toMatchObject(REPORTED);
  });

  it("charges nothing for a call whose connection never opened", async () => {
    server = await startModelServer([FIRST]);
    const closedPort = server.anthropicUrl;
    await server.close();
    server = undefined;
    const config = agentConfig("unreachable", {
      harness: "builtin",
      provider: "anthropic",
      model: "m",
      baseUrl: closedPort,
      apiKeyEnv: "KGATE_TEST_KEY",
      retry: { maxRetries: 1, baseDelayMs: 1, maxDelayMs: 1 },
      pricing: { inputPerMTok: 3, outputPerMTok: 15 },
    });
    const agent = new BuiltinAgent(config, { env: { KGATE_TEST_KEY: "k" } });
    const { signal: _, ...context } = runContext(new DirSandbox(), { agent, phases: { agentGrace: 1000 } });
    const outcome = await agentPhase({ agent, context });
    expect(outcome.error).toMatchObject({ kind: "provider-unreachable" });
    expect(outcome.usage).toMatchObject({ modelCalls: 0, callsChargedAtReservation: 0, costUsd: 0 });
  });
});
