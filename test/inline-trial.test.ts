// Inline trials through the real Anthropic and OpenAI SDK clients against the loopback scripted
// model server: the record (form inline, provenance, usage, cost), the verdict and its attribution.
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AgentConfig, resolveAgentConfig } from "../src/agents/index.ts";
import { createChatModel } from "../src/agents/providers/index.ts";
import { loadValidTask, renderInline, scaffoldTask } from "../src/task/index.ts";
import { readTrialRecords, runInlineTrial } from "../src/trial/index.ts";
import { type ModelServer, type ScriptStep, startModelServer, systemText } from "./support/model-server.ts";
import { tempProject } from "./support/project.ts";

const OUTPUT = "output/result.csv";
const block = (body: string) => `\`\`\`${OUTPUT}\n${body}\`\`\`\n`;

let server: ModelServer;
const queue: ScriptStep[] = [];

beforeAll(async () => {
  server = await startModelServer(() => queue.shift() ?? { status: 500, message: "script exhausted" });
});
afterAll(async () => {
  await server?.close();
});

function setup(provider: "anthropic" | "openai") {
  const paths = tempProject();
  scaffoldTask(paths, { id: "demo", gate: "convention" });
  const config = resolveAgentConfig(
    "probe-agent",
    AgentConfig.parse({
      harness: "builtin",
      provider,
      model: "scripted-model",
      baseUrl: provider === "anthropic" ? server.anthropicUrl : server.openaiUrl,
      pricing: { inputPerMTok: 3, outputPerMTok: 15 },
      retry: { maxRetries: 0 },
    }),
  );
  const task = loadValidTask(paths, "demo");
  const runDir = path.join(paths.runs, "r1");
  const model = createChatModel(config, "sk-loopback");
  return { paths, task, config, runDir, model };
}

describe("runInlineTrial", () => {
  it("passes a correct reply (Anthropic wire) and records it as an ordinary inline record", async () => {
    const { paths, task, config, runDir, model } = setup("anthropic");
    const prompt = renderInline(task, "+A");
    queue.push({
      text: `Costs:\n${block("item,value\nwidget,3.36\ngadget,5.60\n")}`,
      usage: { input: 1000, output: 200 },
    });
    const before = server.requests.length;
    const { record, replies } = await runInlineTrial({
      paths,
      task,
      condition: "+A",
      config,
      model,
      system: prompt.system,
      turns: [prompt.text],
      runId: "r1",
      runDir,
      index: 0,
    });
    const seen = server.requests[before]!;
    const sent = seen.body;
    // Anthropic requests carry the system prompt and user text as blocks (a stable cached prefix).
    expect(systemText(seen)).toBe(prompt.system);
    const [message] = sent.messages as Array<{
      role: string;
      content: Array<{ type: string; text: string }>;
    }>;
    expect(message?.role).toBe("user");
    expect(message?.content.map((b) => b.text).join("")).toBe(prompt.text);
    expect(sent.tools).toBeUndefined();
    expect(replies).toHaveLength(1);
    expect(record).toMatchObject({
      form: "inline",
      condition: "+A",
      agent: { name: "probe-agent", digest: config.digest, harness: "inline", model: "scripted-model" },
      artefactDigest: task.artefact.sha256,
      stopReason: "finish",
      error: null,
      verdict: { status: "pass", reward: 1 },
      outputs: [{ path: OUTPUT, status: "collected", size: 35 }],
    });
    // 1000 input tokens at $3/M + 200 output tokens at $15/M = 0.003 + 0.003 = $0.006
    expect(record.usage).toMatchObject({ inputTokens: 1000, outputTokens: 200, modelCalls: 1 });
    expect(record.usage.costUsd).toBeCloseTo(0.006, 9);
    // the budget it ran under: the scaffold's 900 s, 500,000 tokens and 50 turns are tighter than the
    // configuration's defaults (1800 s, 2,000,000 tokens, 50 turns); no sandbox, so no sandbox deadline
    expect(record.budget).toMatchObject({
      wallClockSec: 900,
      tokens: 500_000,
      turns: 50,
      outputTokens: null,
      sandboxDeadlineSec: null,
      phases: { verify: 60_000 },
    });
    const read = readTrialRecords(runDir);
    expect(read.problems).toEqual([]);
    expect(read.records.map((r) => [r.trialId, r.form])).toEqual([[record.trialId, "inline"]]);
  });

  it("attributes a -A reply with the default markup to the default convention (OpenAI wire)", async () => {
    const { paths, task, config, runDir, model } = setup("openai");
    const prompt = renderInline(task, "-A");
    queue.push({ text: block("item,value\nwidget,3.00\ngadget,5.00\n") });
    const { record } = await runInlineTrial({
      paths,
      task,
      condition: "-A",
      config,
      model,
      system: prompt.system,
      turns: [prompt.text],
      runId: "r1",
      runDir,
      index: 0,
    });
    expect(record.artefactDigest).toBeNull();
    expect(record.canaryLeak).toBe(false);
    expect([record.verdict.status, record.verdict.attribution]).toEqual(["fail", "default-convention"]);
  });

  it("records a malformed block as a format failure, not an error", async () => {
    const { paths, task, config, runDir, model } = setup("anthropic");
    const prompt = renderInline(task, "+A");
    queue.push({ text: `\`\`\`${OUTPUT}\nitem,value\nwidget,3.36\n` });
    const { record } = await runInlineTrial({
      paths,
      task,
      condition: "+A",
      config,
      model,
      system: prompt.system,
      turns: [prompt.text],
      runId: "r1",
      runDir,
      index: 1,
    });
    expect(record.error).toBeNull();
    expect(record.outputs[0]).toMatchObject({ status: "rejected" });
    expect([record.verdict.status, record.verdict.attribution]).toEqual(["fail", "format"]);
  });

  it("keeps a provider failure out of the verdict (infra, unverified) and still writes the record", async () => {
    const { paths, task, config, runDir, model } = setup("openai");
    const prompt = renderInline(task, "+A");
    queue.push({ status: 429, message: "slow down" });
    const { record } = await runInlineTrial({
      paths,
      task,
      condition: "+A",
      config,
      model,
      system: prompt.system,
      turns: [prompt.text],
      runId: "r1",
      runDir,
      index: 2,
    });
    expect(record.error).toMatchObject({ owner: "provider", kind: "rate-limit" });
    expect(record.verdict.status).toBe("unverified");
    expect(readTrialRecords(runDir).records).toHaveLength(1);
  });
});
