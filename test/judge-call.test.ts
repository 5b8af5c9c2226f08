// One judgement through the real @anthropic-ai/sdk and openai clients against the loopback server:
// the deliverable as delimited data, the forced verdict tool, temperature 0 (dropped where refused),
// the answer schema, tokens and cost at the configuration's prices, and which failures are the judge's
// (no verdict) and which the deliverable's (`invalid`). The judges' verdicts here are scripted.
import { afterEach, describe, expect, it } from "vitest";
import { JudgeUnavailableError, judgePanel, markerTag } from "../src/agents/index.ts";
import { judgeRequestOf, judgeScript, writeJudgeConfig } from "./support/judge-model.ts";
import { type ModelServer, type Script, startModelServer, systemText } from "./support/model-server.ts";
import { tempProject } from "./support/project.ts";

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const KEY = "k-judge";
const env = { KGATE_TEST_JUDGE_KEY: KEY };
const criterion = "The memo states that the marked-up total is 36.40.";
const memo = [{ path: "output/memo.md", text: "bolt, nut and gear: 36.40 in total.\n" }];

async function panelFor(provider: "anthropic" | "openai", script: Script) {
  server = await startModelServer(script, { requireKey: KEY });
  const paths = tempProject();
  const baseUrl = provider === "anthropic" ? server.anthropicUrl : server.openaiUrl;
  writeJudgeConfig(paths, { provider, baseUrl });
  return judgePanel(paths, { env });
}

describe.each(["anthropic", "openai"] as const)("a judge over the %s wire", (provider) => {
  it("sends the deliverable between tagged markers, forces the verdict tool at temperature 0, and prices the call", async () => {
    const panel = await panelFor(
      provider,
      judgeScript(() => ({ verdict: "pass", reason: "states 36.40" })),
    );
    const result = await panel.ask("judge", criterion, memo);
    // 900 input tokens at $3 and 40 output tokens at $15 per million: (2700 + 600) / 1e6 = $0.0033.
    expect(result).toEqual({
      verdict: "pass",
      reason: "states 36.40",
      model: provider === "anthropic" ? "claude-judge" : "gpt-judge",
      temperature: 0,
      usage: {
        inputTokens: 900,
        outputTokens: 40,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        cacheWrite1hTokens: 0,
        modelCalls: 1,
        callsChargedAtReservation: 0,
        costUsd: 0.0033,
      },
    });
    const seen = server!.requests[0]!;
    expect(seen.body.temperature).toBe(0);
    expect(seen.body.tool_choice).toEqual(
      provider === "anthropic"
        ? { type: "tool", name: "record_verdict" }
        : { type: "function", function: { name: "record_verdict" } },
    );
    expect(systemText(seen)).toMatch(/never instructions to you/);
    const tag = markerTag(criterion, memo);
    expect(judgeRequestOf(seen)).toEqual({ criterion, deliverable: memo[0]!.text.trimEnd(), tag });
    if (provider === "openai") {
      const tools = seen.body.tools as Array<{ function: { strict?: boolean } }>;
      expect(tools[0]!.function.strict).toBe(true);
    }
  });

  it("reads a verdict off its schema as the deliverable's doing (invalid), with the reason", async () => {
    const panel = await panelFor(
      provider,
      judgeScript(() => ({ verdict: "maybe", reason: "the memo told me to say maybe" })),
    );
    const result = await panel.ask("judge", criterion, memo);
    expect(result.verdict).toBe("invalid");
    expect(result.reason).toMatch(/^the judge's answer is off its schema: verdict: /);
    expect(result.usage.modelCalls).toBe(1);
  });

  it("reads an answer without the tool as invalid, and a JSON text answer as the answer", async () => {
    const texts = ["I refuse to grade this.", '{"verdict": "fail", "reason": "no total"}'];
    const panel = await panelFor(provider, (_r, i) => ({ text: texts[i] }));
    const first = await panel.ask("judge", criterion, memo);
    expect(first).toMatchObject({ verdict: "invalid" });
    expect(first.reason).toContain('the judge answered without its verdict: "I refuse to grade this."');
    expect(await panel.ask("judge", criterion, memo)).toMatchObject({ verdict: "fail", reason: "no total" });
  });

  it("reads a deliverable that fills the judge's context as invalid, not as the judge's failure", async () => {
    const panel = await panelFor(provider, [
      { status: 400, message: "prompt is too long: 250000 tokens > 200000 maximum" },
    ]);
    const result = await panel.ask("judge", criterion, [{ path: "output/memo.md", text: "x".repeat(1000) }]);
    expect(result.verdict).toBe("invalid");
    expect(result.reason).toMatch(/^the deliverable does not fit the judge's context: .*prompt is too long/);
  });

  it("gives no verdict when the provider stays down past the retries (3 calls: 1 + 2 retries)", async () => {
    const panel = await panelFor(provider, [{ status: 503, message: "overloaded" }]);
    const err = await panel.ask("judge", criterion, memo).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(JudgeUnavailableError);
    expect((err as Error).message).toMatch(/^provider-outage: .*overloaded/);
    expect(server!.requests).toHaveLength(3);
  });
});

describe("judge configuration", () => {
  it("sends the request again without temperature when the provider refuses one, and records null", async () => {
    const panel = await panelFor("openai", (request, index) =>
      index === 0
        ? { status: 400, message: "Unsupported value: 'temperature' does not support 0 with this model." }
        : judgeScript(() => ({ verdict: "fail", reason: "no total" }))(request, index),
    );
    const result = await panel.ask("judge", criterion, memo);
    expect(result).toMatchObject({ verdict: "fail", temperature: null });
    expect(server!.requests.map((r) => r.body.temperature)).toEqual([0, undefined]);
  });

  it("names what is missing: an unknown configuration, an unset key, a refused key", async () => {
    const panel = await panelFor(
      "anthropic",
      judgeScript(() => ({ verdict: "pass", reason: "ok" })),
    );
    expect(panel.unavailable("judge")).toBeNull();
    expect(panel.unavailable("other")).toBe(
      'no agent configuration "other" in kgate.config.json (the judge a judge criterion names)',
    );
    const paths = tempProject();
    writeJudgeConfig(paths, { provider: "anthropic", baseUrl: server!.anthropicUrl });
    const keyless = judgePanel(paths, { env: {} });
    expect(keyless.unavailable("judge")).toBe(
      'the judge "judge" needs the environment variable KGATE_TEST_JUDGE_KEY (its API key)',
    );
    await expect(keyless.ask("judge", criterion, memo)).rejects.toThrow(JudgeUnavailableError);
    const refused = judgePanel(paths, { env: { KGATE_TEST_JUDGE_KEY: "wrong" } });
    await expect(refused.ask("judge", criterion, memo)).rejects.toThrow(/^auth: /);
  });
});
