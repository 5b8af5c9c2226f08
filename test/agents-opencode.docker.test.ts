// The real OpenCode CLI (opencode-ai, pinned) in the harness image, through the relay, against the
// loopback model server speaking Chat Completions with scripted replies: under +A it lists the skill
// in .opencode/skills and reads it (the runner in process), under -A nothing of the artefact exists
// (through the `kgate run` bin); tokens in the record, as billed by the loopback server.
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ensureHarnessImage, InstalledAgent, opencode, readTrajectory } from "../src/agents/index.ts";
import { projectPaths } from "../src/project.ts";
import { ZERO_USAGE } from "../src/record/index.ts";
import type { Condition, LoadedTask } from "../src/task/index.ts";
import { agentConfig, scaffoldedTask } from "./support/agent-context.ts";
import { engineTrials, TestDockerProvider } from "./support/engine.ts";
import {
  type ModelServer,
  type ScriptStep,
  type SeenRequest,
  startModelServer,
  systemText,
  turnIndex,
} from "./support/model-server.ts";
import { writeJson } from "./support/project.ts";
import { kgateAsync } from "./support/scripted-model.ts";

const repo = projectPaths(path.resolve(import.meta.dirname, ".."));
const UPSTREAM_KEY = "sk-qwen-upstream-never-in-the-container";

beforeAll(async () => {
  await ensureHarnessImage(repo, new TestDockerProvider(), (line) =>
    process.stderr.write(`[harness image] ${line}\n`),
  );
}, 900_000);

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const AGENT_TURN = { input: 3000, output: 50 };
const SIDE_CALL = { input: 100, output: 5 };

/**
 * A scripted model driving the real OpenCode on the demo task: load the skill OpenCode lists (its
 * `skill` tool), else look around with bash; apply the 12% rate if the specification's text reached
 * the conversation, no overhead otherwise; write the output with bash; stop. Calls without tools
 * (OpenCode's title generator) get a plain answer.
 */
function policy(request: SeenRequest): ScriptStep {
  const tools = (request.body.tools as unknown[] | undefined) ?? [];
  if (tools.length === 0) return { text: "Costing run", usage: SIDE_CALL };
  const turn = turnIndex(request);
  if (turn === 0) {
    const listed = /<name>(\S+)<\/name>\s*<description>The established internal specification/.exec(
      systemText(request),
    )?.[1];
    if (listed) return { toolCalls: [{ name: "skill", input: { name: listed } }], usage: AGENT_TURN };
    return {
      toolCalls: [{ name: "bash", input: { command: "ls -la", description: "look around" } }],
      usage: AGENT_TURN,
    };
  }
  if (turn === 1) {
    const rate = /overhead rate of 12%/.test(JSON.stringify(request.body.messages)) ? 1.12 : 1;
    const command = `mkdir -p output && awk -F, 'NR==1{print "item,value"; next}{printf "%s,%.2f\\n", $1, $2*${rate}}' input.csv > output/result.csv`;
    return {
      toolCalls: [{ name: "bash", input: { command, description: "write the result" } }],
      usage: AGENT_TURN,
    };
  }
  return { text: "Wrote output/result.csv.", usage: AGENT_TURN };
}

/** What the loopback server billed, worked out from the requests it saw: agent turns and side calls. */
function billed() {
  const withTools = server!.requests.filter(
    (r) => ((r.body.tools as unknown[] | undefined) ?? []).length > 0,
  ).length;
  const side = server!.requests.length - withTools;
  const input = withTools * AGENT_TURN.input + side * SIDE_CALL.input;
  const output = withTools * AGENT_TURN.output + side * SIDE_CALL.output;
  // pricing 0.4 in / 1.2 out per million tokens
  return { withTools, input, output, costUsd: (input * 0.4 + output * 1.2) / 1e6 };
}

function opencodeConfig(baseUrl: string) {
  return {
    harness: "opencode",
    provider: "openai-compatible",
    model: "qwen-scripted",
    baseUrl,
    apiKeyEnv: "KGATE_TEST_UPSTREAM_KEY",
    retry: { maxRetries: 1, baseDelayMs: 5, maxDelayMs: 20 },
    pricing: { inputPerMTok: 0.4, outputPerMTok: 1.2 },
    timeoutSec: 300,
  } as const;
}

/** One trial through the real runner (in process). */
async function opencodeTrial(
  task: LoadedTask,
  condition: Condition,
  followUp?: Parameters<typeof engineTrials>[0]["followUp"],
) {
  server = await startModelServer(policy, { requireKey: UPSTREAM_KEY });
  const agent = new InstalledAgent(agentConfig("mid-opencode", opencodeConfig(server.openaiUrl)), {
    adapter: opencode,
    env: { KGATE_TEST_UPSTREAM_KEY: UPSTREAM_KEY },
    ensureImage: (provider) => ensureHarnessImage(repo, provider),
  });
  const paths = projectPaths(path.dirname(path.dirname(task.dir)));
  const runDir = path.join(paths.runs, "opencode-test");
  const [record] = await engineTrials({
    paths,
    task,
    condition,
    agent,
    runId: "opencode-test",
    runDir,
    n: 1,
    retries: 0,
    followUp,
  });
  const outputs = path.join(runDir, "trials", record!.trialId, "outputs", "output", "result.csv");
  return { record: record!, runDir, output: () => readFileSync(outputs, "utf8") };
}

describe("the real OpenCode through the relay (Docker, scripted loopback model, Chat Completions)", () => {
  it("under +A lists the skill in .opencode/skills, loads it, and the artefact's convention is applied", async () => {
    const task = scaffoldedTask();
    // the monitoring hook sees what OpenCode reported as its final message (asked nothing here)
    const finalMessages: Array<string | null> = [];
    const { record, runDir, output } = await opencodeTrial(task, "+A", async (finished) => {
      if ("finalMessage" in finished) finalMessages.push(finished.finalMessage);
      return { mode: "follow-up", keep: null, bet: null, turns: [], usage: ZERO_USAGE, error: null };
    });
    expect(finalMessages).toEqual(["Wrote output/result.csv."]);
    expect(record.error).toBeNull();
    expect(record.stopReason).toBe("finish");
    expect(output()).toBe("item,value\nwidget,3.36\ngadget,5.60\n");
    expect(record.agent).toMatchObject({ name: "mid-opencode", harness: "opencode", model: "qwen-scripted" });
    expect(record.artefactListed).toBe(true);
    expect(record.artefactOpened).toBe(true);
    const { events } = readTrajectory(path.join(runDir, record.trajectory!));
    expect(events.find((e) => e.type === "tool-call")).toMatchObject({
      name: "skill",
      input: { name: "specification" },
    });
    // three agent turns (skill, bash, the final text), each billed 3000 in / 50 out
    const bill = billed();
    expect(bill.withTools).toBe(3);
    expect(record.usage).toMatchObject({
      inputTokens: bill.input,
      outputTokens: bill.output,
      modelCalls: server!.requests.length,
    });
    expect(record.usage.costUsd).toBeCloseTo(bill.costUsd, 9);
    // OpenCode's own accounting (step_finish events on stdout) agrees for its agent steps: 3 x 3000
    expect(events.find((e) => e.kind === "harness-exit")).toMatchObject({
      exitCode: 0,
      steps: 3,
      harnessTokens: { input: 9000, output: 150 },
    });
    expect(server!.requests.every((r) => r.headers.authorization === `Bearer ${UPSTREAM_KEY}`)).toBe(true);
    expect(JSON.stringify(server!.requests.map((r) => r.body.tools ?? []))).not.toMatch(/webfetch|websearch/);
  }, 600_000);

  it("under -A through `kgate run` (bin): no skill listed, the default convention, no leak", async () => {
    server = await startModelServer(policy, { requireKey: UPSTREAM_KEY });
    const task = scaffoldedTask();
    const root = path.dirname(path.dirname(task.dir));
    writeJson(path.join(root, "kgate.config.json"), {
      agents: { "mid-opencode": opencodeConfig(server.openaiUrl) },
    });
    const ran = await kgateAsync(
      ["--root", root, "run", "demo", "--agent", "mid-opencode", "--condition", "-A", "--json"],
      { KGATE_TEST_UPSTREAM_KEY: UPSTREAM_KEY },
    );
    expect(ran.code, ran.stderr).toBe(0);
    const { runId, records } = JSON.parse(ran.stdout);
    const record = records[0];
    expect(record).toMatchObject({
      agent: { name: "mid-opencode", harness: "opencode", model: "qwen-scripted" },
      stopReason: "finish",
      error: null,
      artefactListed: false,
      artefactOpened: null,
      canaryLeak: false,
    });
    const output = path.join(
      root,
      "runs",
      runId,
      "trials",
      record.trialId,
      "outputs",
      "output",
      "result.csv",
    );
    expect(readFileSync(output, "utf8")).toBe("item,value\nwidget,3.00\ngadget,5.00\n");
    const bill = billed();
    expect(bill.withTools).toBe(3);
    expect(record.usage).toMatchObject({ inputTokens: bill.input, outputTokens: bill.output });
    const agentSystem = systemText(
      server!.requests.find((r) => ((r.body.tools as unknown[] | undefined) ?? []).length > 0)!,
    );
    expect(agentSystem).toContain("<available_skills>");
    expect(agentSystem).not.toContain("The established internal specification for this task");
  }, 600_000);
});
