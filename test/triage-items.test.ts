// Item units in phase 0 through the real Anthropic and OpenAI clients on the loopback model server
// (scripted replies): the answer line, checking, cost as reported output tokens, a capped reply.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AnthropicModel, OpenAIModel } from "../src/agents/providers/index.ts";
import { parseItemPool } from "../src/task/index.ts";
import { extractAnswer, runItemUnit } from "../src/triage/index.ts";
import { type ModelServer, type ScriptStep, startModelServer } from "./support/model-server.ts";

const [number, choice] = parseItemPool(
  [
    '{"id": "n", "prompt": "Compute 17 + 25.", "answer": 42, "checker": "number"}',
    '{"id": "c", "prompt": "Which is prime?", "answer": "C", "checker": "choice", "choices": ["A", "B", "C", "D"]}',
  ].join("\n"),
  "items/t.jsonl",
);

let server: ModelServer;
let next: ScriptStep = { text: "" };
beforeAll(async () => {
  server = await startModelServer(() => next);
});
afterAll(async () => {
  await server?.close();
});

describe("the answer line", () => {
  it("takes the text after the last ANSWER:, else the reply", () => {
    expect(extractAnswer("I think 41.\nANSWER: 41\nno wait\nANSWER: 42")).toBe("42");
    expect(extractAnswer("answer:\n\n  Paris  ")).toBe("Paris");
    expect(extractAnswer("just 7")).toBe("just 7");
  });
});

const NO_RETRY = { maxRetries: 0, baseDelayMs: 0, maxDelayMs: 0 };

describe("an item unit", () => {
  it("is one call at temperature 0 with the cap as max_tokens; cost is the reported output tokens", async () => {
    next = { text: "17 + 25 = 42\nANSWER: 42", usage: { output: 37 } };
    const model = new AnthropicModel({ model: "claude-scripted", baseUrl: server.anthropicUrl, apiKey: "k" });
    const out = await runItemUnit(model, number!, { maxOutputTokens: 512, temperature: 0, retry: NO_RETRY });
    expect(out).toMatchObject({ cost: 37, correct: true, capped: false, answer: "42" });
    const body = server.requests.at(-1)!.body as {
      temperature: number;
      max_tokens: number;
      messages: unknown[];
    };
    expect(body.temperature).toBe(0);
    expect(body.max_tokens).toBe(512);
    expect(JSON.stringify(body.messages)).toContain("ANSWER: <your answer>");
  });

  it("marks a reply cut at the cap, and shows a choice item its options (OpenAI wire)", async () => {
    next = {
      text: "Let me think about each option in turn. A is 4 = 2 x 2, B",
      usage: { output: 64 },
      truncated: true,
    };
    const model = new OpenAIModel({
      model: "gpt-scripted",
      baseUrl: server.openaiUrl,
      apiKey: "k",
      maxTokensField: "max_completion_tokens",
    });
    const out = await runItemUnit(model, choice!, { maxOutputTokens: 64, temperature: 0, retry: NO_RETRY });
    // no ANSWER line: the whole reply is the answer, and it names both A and B -> not one option -> wrong
    expect(out).toMatchObject({ cost: 64, correct: false, capped: true });
    expect(JSON.stringify(server.requests.at(-1)!.body)).toContain("Options: A, B, C, D");
  });
});
