// The relay's caps from kgate.config.json `relay` (red-team items 2 and 8): validated with errors
// naming the file and the field, defaulting to 8 MiB bodies, 4 requests in flight, 64 connections, 32
// calls the provider refuses and 600 s of upstream silence,
// and enforced end to end: a harness in a real container (the stand-in CLI) through the relay.
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AdaptiveLimits, ensureHarnessImage, InstalledAgent, parseConfigText } from "../src/agents/index.ts";
import { projectPaths } from "../src/project.ts";
import { containerLabels } from "../src/sandbox/index.ts";
import { runContext, scaffoldedTask } from "./support/agent-context.ts";
import { providerSandbox, TestDockerProvider } from "./support/engine.ts";
import { type ModelServer, startModelServer } from "./support/model-server.ts";
import { standin } from "./support/standin.ts";

const repo = projectPaths(path.resolve(import.meta.dirname, ".."));
const FILE = "kgate.config.json";
const KEY = "sk-ant-upstream-relay-config";

function configText(relay: unknown, baseUrl = "http://127.0.0.1:9/unused"): string {
  return JSON.stringify({
    agents: {
      stand: {
        harness: "claude-code",
        provider: "anthropic",
        model: "scripted",
        baseUrl,
        apiKeyEnv: "KGATE_TEST_RELAY_KEY",
        retry: { maxRetries: 0, baseDelayMs: 5, maxDelayMs: 20 },
      },
    },
    ...(relay === undefined ? {} : { relay }),
  });
}

describe("kgate.config.json relay", () => {
  it("defaults to today's caps and hands the file's caps to every configuration", () => {
    const defaults = parseConfigText(FILE, configText(undefined));
    expect(defaults.errors).toEqual([]);
    // 8 MiB = 8 * 1024 * 1024 = 8,388,608 bytes.
    expect(defaults.agents[0]?.relay).toEqual({
      maxBodyBytes: 8_388_608,
      maxInFlight: 4,
      maxConnections: 64,
      maxRejectedCalls: 32,
      upstreamTimeoutSec: 600,
      requestTimeoutSec: 30,
    });
    const set = parseConfigText(
      FILE,
      configText({ maxBodyBytes: 4096, maxInFlight: 2, upstreamTimeoutSec: 30, requestTimeoutSec: 5 }),
    );
    expect(set.agents[0]?.relay).toEqual({
      maxBodyBytes: 4096,
      maxInFlight: 2,
      maxConnections: 64,
      maxRejectedCalls: 32,
      upstreamTimeoutSec: 30,
      requestTimeoutSec: 5,
    });
    // The caps bound a harness, they do not define the configuration: the digest stays.
    expect(set.agents[0]?.digest).toBe(defaults.agents[0]?.digest);
  });

  it.each([
    [{ maxInFlight: 0 }, "relay.maxInFlight"],
    [{ maxBodyBytes: "8m" }, "relay.maxBodyBytes"],
    [{ maxConnections: 1.5 }, "relay.maxConnections"],
    [{ maxRejectedCalls: 0 }, "relay.maxRejectedCalls"],
    [{ upstreamTimeoutSec: 7200 }, "relay.upstreamTimeoutSec"],
    [{ requestTimeoutSec: 0 }, "relay.requestTimeoutSec"],
    [{ maxBody: 10 }, "relay"],
  ])("refuses %j, naming the file and the field %s", (relay, field) => {
    const result = parseConfigText(FILE, configText(relay));
    expect(result.agents).toEqual([]);
    expect(result.errors[0]).toMatchObject({ file: FILE, field });
  });
});

describe("a configured relay cap, end to end", () => {
  let server: ModelServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function runStandin(maxBodyBytes: number, instruction: string) {
    server = await startModelServer([{ text: "done" }], { requireKey: KEY });
    const parsed = parseConfigText(FILE, configText({ maxBodyBytes }, server.anthropicUrl));
    expect(parsed.errors).toEqual([]);
    const agent = new InstalledAgent(parsed.agents[0]!, {
      adapter: standin,
      env: { KGATE_TEST_RELAY_KEY: KEY },
      ensureImage: (provider) => ensureHarnessImage(repo, provider),
    });
    const task = scaffoldedTask();
    const requirements = await agent.prepare({
      provider: new TestDockerProvider(),
      limits: new AdaptiveLimits(),
    });
    const sandbox = await providerSandbox({
      image: "unused-when-requirements-name-one",
      limits: task.spec.limits,
      labels: containerLabels({ runId: "test-relay-config", trialId: String(maxBodyBytes), taskId: task.id }),
      requirements,
    });
    const ctx = runContext(sandbox, { task, condition: "-A", instruction });
    try {
      const result = await agent.run(ctx);
      return { result, events: ctx.trajectory.events, requests: server.requests.length };
    } finally {
      await sandbox.remove();
      await agent.dispose();
    }
  }

  it("a body over relay.maxBodyBytes is refused before it reaches the provider; a small one passes", async () => {
    // The stand-in sends the instruction as its first user message: 2,000 bytes of it make a body
    // over the configured 1,024 bytes (and far under the default 8 MiB).
    const big = await runStandin(1024, "x".repeat(2000));
    expect(big.requests).toBe(0);
    expect(big.events.filter((e) => e.kind === "relay-limit")).toEqual([
      expect.objectContaining({ limit: "body-size" }),
    ]);
    // Its whole body (model, max_tokens, a 28-byte system prompt, one tool of about 150 bytes, "hi")
    // is under 1,024 bytes: forwarded, answered "done".
    const small = await runStandin(1024, "hi");
    expect(small.requests).toBe(1);
    expect(small.events.filter((e) => e.kind === "relay-limit")).toEqual([]);
    expect(small.result.stopReason).toBe("finish");
  }, 180_000);
});
