// Hostile agents at the relay, end to end (issue 40, red team round 3 S1e and L1e): the stand-in CLI
// as an installed harness in a real container (the engine, the relay forwarder and the exec-stream
// channel on the local daemon) against a loopback Anthropic upstream that counts what it streamed.
//   S1e: the agent's command hangs up on streamed calls before their last event: the record charges
//        what the upstream streamed (before: 50 output tokens recorded of 122,700 streamed).
//   L1e: the agent's command plants an `Expect: 100-continue` call, then holds the trial's in-flight
//        slots so that the harness's next call is refused and the harness exits 1: the trial is the
//        agent's (before: `provider-unreachable`, infrastructure).
// The agent's scripts are the red team's (test/fixtures/redteam-round3/).
import { readFileSync } from "node:fs";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureHarnessImage, InstalledAgent } from "../src/agents/index.ts";
import { projectPaths } from "../src/project.ts";
import { outcomeOf } from "../src/record/index.ts";
import { agentConfig, scaffoldedTask } from "./support/agent-context.ts";
import { engineTrials } from "./support/engine.ts";
import { anthropicEvents } from "./support/model-wire.ts";
import { standin } from "./support/standin.ts";

const repo = projectPaths(path.resolve(import.meta.dirname, ".."));
const FIXTURES = path.resolve(import.meta.dirname, "fixtures/redteam-round3");
const KEY = "sk-ant-upstream-rt3";
const DELTAS = 20;
const TOKENS_PER_DELTA = 100;
const streamed = { input: 0, output: 0, calls: 0 };
/** The command of the harness's first turn; later turns answer "done". */
let firstCommand = "true";
let harnessTurns = 0;

const upstream = createServer((req, res: ServerResponse) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", async () => {
    if (req.headers["x-api-key"] !== KEY) return void res.writeHead(401).end();
    const body = JSON.parse(Buffer.concat(chunks).toString() || "{}") as Record<string, unknown>;
    res.writeHead(200, { "content-type": "text/event-stream" });
    const send = (event: string, data: unknown) =>
      res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    if (Array.isArray(body.tools) && body.tools.length > 0) {
      // the harness's own turns: the first runs the agent's command, the next says done
      const turn = harnessTurns++;
      const toolCalls = turn === 0 ? [{ name: "bash", input: { command: firstCommand } }] : [];
      const reply = {
        text: turn === 0 ? "" : "done",
        toolCalls,
        usage: { input: 100, output: 10, cacheRead: 0, cacheWrite: 0 },
        model: "scripted",
        truncated: false,
      };
      for (const [e, d] of anthropicEvents(reply)) send(e, d);
      return void res.end();
    }
    // the agent's own calls: a long streamed answer, generated delta by delta while someone reads
    streamed.calls++;
    streamed.input += 20;
    send("message_start", {
      type: "message_start",
      message: {
        id: "m",
        type: "message",
        role: "assistant",
        content: [],
        usage: { input_tokens: 20, output_tokens: 1 },
      },
    });
    send("content_block_start", {
      type: "content_block_start",
      index: 0,
      content_block: { type: "text", text: "" },
    });
    for (let i = 0; i < DELTAS; i++) {
      await new Promise((r) => setImmediate(r));
      if (res.destroyed) return;
      streamed.output += TOKENS_PER_DELTA;
      send("content_block_delta", {
        type: "content_block_delta",
        index: 0,
        delta: { type: "text_delta", text: "y".repeat(TOKENS_PER_DELTA * 4) },
      });
    }
    send("content_block_stop", { type: "content_block_stop", index: 0 });
    send("message_delta", {
      type: "message_delta",
      delta: { stop_reason: "end_turn" },
      usage: { output_tokens: DELTAS * TOKENS_PER_DELTA },
    });
    send("message_stop", { type: "message_stop" });
    res.end();
  });
});
let upstreamUrl = "";
beforeAll(async () => {
  await new Promise<void>((r) => upstream.listen(0, "127.0.0.1", r));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
});
afterAll(async () => {
  upstream.closeAllConnections();
  await new Promise<void>((r) => upstream.close(() => r()));
});

async function standinAgent(tokenBudget: number): Promise<InstalledAgent> {
  const config = agentConfig("standin", {
    harness: "claude-code",
    provider: "anthropic",
    model: "scripted",
    baseUrl: upstreamUrl,
    apiKeyEnv: "RT3_KEY",
    tokenBudget,
    maxOutputTokens: 5000,
    retry: { maxRetries: 2, baseDelayMs: 100, maxDelayMs: 400 },
    pricing: { inputPerMTok: 5, outputPerMTok: 25 },
  });
  return new InstalledAgent(config, {
    adapter: standin,
    env: { RT3_KEY: KEY },
    ensureImage: (provider) => ensureHarnessImage(repo, provider),
  });
}

/** The agent's command: the red team's script written into the sandbox, then run with node. */
function nodeScript(file: string, args: string): string {
  const source = readFileSync(path.join(FIXTURES, file), "utf8");
  return `cat > /tmp/a.mjs <<'RT3EOF'\n${source}\nRT3EOF\nnode /tmp/a.mjs ${args}`;
}

async function oneTrial(agent: InstalledAgent, runId: string) {
  const task = scaffoldedTask();
  const paths = projectPaths(path.dirname(path.dirname(task.dir)));
  const runDir = path.join(paths.runs, runId);
  const [record] = await engineTrials({
    paths,
    task,
    condition: "-A",
    agent,
    runId,
    runDir,
    n: 1,
    retries: 0,
  });
  return record!;
}

describe("hostile agents at the relay, in a container", () => {
  it("S1e: streamed calls hung up on before their last event are charged what was streamed", async () => {
    harnessTurns = 0;
    Object.assign(streamed, { input: 0, output: 0, calls: 0 });
    // 5 calls, each hung up on after 5 of its 20 text deltas
    firstCommand = nodeScript("hangup.mjs", "5 5");
    const agent = await standinAgent(1_000_000);
    try {
      const record = await oneTrial(agent, "rt3-s1e");
      // the relay read each reply to its end: 5 calls x 20 deltas x 100 tokens = 10,000 streamed
      expect(streamed).toEqual({ input: 100, output: 10_000, calls: 5 });
      // and charged it, beside the harness's two turns (10 output tokens each)
      expect(record.usage.outputTokens).toBeGreaterThanOrEqual(streamed.output + 20);
      expect(record.usage.callsChargedAtReservation + record.usage.modelCalls).toBeGreaterThanOrEqual(7);
      // $25 per million output tokens: at least 10,020 x 25 / 1e6 = $0.2505
      expect(record.usage.costUsd!).toBeGreaterThanOrEqual(0.2505);
      expect(record.reportedUsage).not.toBeNull();
    } finally {
      await agent.dispose();
    }
  });

  it("L1e: a planted Expect header, then the harness's calls refused: the trial is the agent's", async () => {
    harnessTurns = 0;
    firstCommand = nodeScript("launder.mjs", "plant");
    const agent = await standinAgent(1_000_000);
    try {
      const record = await oneTrial(agent, "rt3-l1e");
      expect(record.error?.kind).toBe("agent-exit");
      expect(outcomeOf(record)).toBe("fail");
    } finally {
      await agent.dispose();
    }
  });
});
