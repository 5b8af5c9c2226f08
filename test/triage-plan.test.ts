// The phase-1 plan: the three framings differ only in their role sentence, and replies are read
// defensively (fenced or bare JSON, duplicates, unknown ids, bad allocations, over budget, garbage).
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  ANSWER_INSTRUCTION,
  MAX_PLAN_CHARS,
  parsePlan,
  planPrompt,
  REASK,
  ROLE_SENTENCES,
} from "../src/triage/index.ts";

const IDS = new Set(["a", "b", "c"]);
const units = [
  { id: "a", value: 1, text: "Compute 17 + 25." },
  { id: "b", value: 2, text: "Name the capital of France." },
];

describe("the plan prompt", () => {
  it("differs between framings only in the role sentence", () => {
    const neutral = planPrompt("neutral", units, 1234);
    for (const framing of ["agent", "exam"] as const) {
      const other = planPrompt(framing, units, 1234);
      expect(other).not.toBe(neutral);
      expect(other.replace(ROLE_SENTENCES[framing], ROLE_SENTENCES.neutral)).toBe(neutral);
    }
    expect(neutral.startsWith(ROLE_SENTENCES.neutral)).toBe(true);
    expect(neutral).toContain("You have 1234 output tokens");
    expect(neutral).toContain("### b (value 2)\nName the capital of France.");
  });
});

describe("docs/triage.md", () => {
  it("quotes the prompts exactly: the example plan prompt, the re-ask, the role sentences, the answer line", () => {
    const docs = readFileSync(path.resolve(import.meta.dirname, "../docs/triage.md"), "utf8");
    const example = planPrompt(
      "neutral",
      [
        { id: "sum-primes", value: 1, text: "What is the sum of the prime numbers below 30?" },
        { id: "capital", value: 1, text: "What is the capital of Australia?" },
      ],
      1234,
    );
    expect(docs).toContain(`\`\`\`text\n${example}\n\`\`\``);
    expect(docs).toContain(`\`\`\`text\n${REASK}\n\`\`\``);
    expect(docs).toContain(`\`\`\`text\n${ANSWER_INSTRUCTION}\n\`\`\``);
    for (const [framing, sentence] of Object.entries(ROLE_SENTENCES))
      expect(docs).toContain(`| ${framing} | ${sentence} |`);
  });
});

describe("reading a plan", () => {
  it("keeps the array order as execution order and sums the allocations", () => {
    const r = parsePlan('{"plan": [{"id": "c", "tokens": 300}, {"id": "a", "tokens": 200}]}', IDS, 500);
    expect(r).toEqual({
      ok: true,
      steps: [
        { id: "c", tokens: 300 },
        { id: "a", tokens: 200 },
      ],
      dropped: [],
      allocated: 500, // 300 + 200
      compliant: true, // 500 <= 500
    });
  });

  it("finds the JSON in a fenced block or amid prose", () => {
    const fenced = parsePlan(
      'Sure.\n```json\n{"plan": [{"id": "a", "tokens": 10}]}\n```\nGood luck.',
      IDS,
      100,
    );
    const prose = parsePlan('My plan is {"plan": [{"id": "b", "tokens": 10}]} as asked.', IDS, 100);
    expect(fenced.ok && fenced.steps).toEqual([{ id: "a", tokens: 10 }]);
    expect(prose.ok && prose.steps).toEqual([{ id: "b", tokens: 10 }]);
  });

  it("drops duplicates and unknown ids, skips non-positive and non-integer allocations, with reasons", () => {
    const r = parsePlan(
      JSON.stringify({
        plan: [
          { id: "a", tokens: 100 },
          { id: "a", tokens: 50 },
          { id: "nope", tokens: 10 },
          { id: "b", tokens: 0 },
          { id: "b", tokens: -5 },
          { id: "b", tokens: 12.5 },
          { id: "b", tokens: "40" },
          "c",
          { id: "c", tokens: 40 },
        ],
      }),
      IDS,
      1000,
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.steps).toEqual([
      { id: "a", tokens: 100 },
      { id: "c", tokens: 40 },
    ]);
    expect(r.dropped.map((d) => [d.index, d.reason])).toEqual([
      [1, "duplicate id"],
      [2, "unknown id"],
      [3, "non-positive or non-integer tokens"],
      [4, "non-positive or non-integer tokens"],
      [5, "non-positive or non-integer tokens"],
      [6, "non-positive or non-integer tokens"],
      [7, "not an {id, tokens} object"],
    ]);
    expect(r.allocated).toBe(140); // 100 + 40
  });

  it("flags a plan over budget as non-compliant but keeps it (it runs until the budget runs out)", () => {
    const r = parsePlan('{"plan": [{"id": "a", "tokens": 600}, {"id": "b", "tokens": 500}]}', IDS, 1000);
    // 600 + 500 = 1100 > 1000
    expect(r).toMatchObject({ ok: true, allocated: 1100, compliant: false });
  });

  it("rejects garbage, a JSON value without a plan array, and an oversized reply", () => {
    expect(parsePlan("I will do my best.", IDS, 10)).toEqual({
      ok: false,
      reason: "no JSON object in the reply",
    });
    expect(parsePlan('{"tasks": []}', IDS, 10)).toMatchObject({ ok: false });
    expect(parsePlan('{"plan": {"a": 1}}', IDS, 10)).toMatchObject({ ok: false });
    expect(parsePlan("[1, 2]", IDS, 10)).toMatchObject({ ok: false });
    expect(parsePlan(`{"plan": []}${" ".repeat(MAX_PLAN_CHARS)}`, IDS, 10)).toMatchObject({ ok: false });
  });

  it("reads an empty plan as a compliant plan of nothing", () => {
    expect(parsePlan('{"plan": []}', IDS, 0)).toEqual({
      ok: true,
      steps: [],
      dropped: [],
      allocated: 0,
      compliant: true,
    });
  });
});
