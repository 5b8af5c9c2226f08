// The exam prompts' contents and the parser of extraction replies (a model reply is untrusted text).
import { describe, expect, it } from "vitest";
import { examPrompt, extractionPrompt, parseAnswers } from "../src/exam/index.ts";

describe("examPrompt", () => {
  it("lists every question with its points, the total and the budget", () => {
    const text = examPrompt(
      [
        { position: 1, points: 3, text: "A?" },
        { position: 2, points: 14, text: "B?" },
      ],
      900,
      "baseline",
    );
    expect(text).toMatch(/^This exam has 2 questions worth 17 points in total/); // 3 + 14
    expect(text).toContain("one budget of 900 tokens");
    expect(text).toContain("Question 2 (14 points): B?");
    expect(text).not.toContain("plan the allocation first");
    expect(extractionPrompt(4)).toContain('"Q4: <answer>"');
  });
});

describe("parseAnswers", () => {
  it("reads Qk lines in common dresses; the first line per question wins; - is no answer", () => {
    const reply = [
      "Q1: 42",
      "**Q2:** Paris",
      "**Question 3) B**",
      "Q4: -",
      "Q1: 43",
      "Q9: out of range",
      "noise Q5: 1",
    ].join("\n");
    const answers = parseAnswers(reply, 5);
    expect([...answers.entries()]).toEqual([
      [1, "42"],
      [2, "Paris"],
      [3, "B"],
    ]);
  });

  it("caps an answer's length", () => {
    const answers = parseAnswers(`Q1: ${"x".repeat(10_000)}`, 1);
    expect(answers.get(1)!.length).toBe(2000);
  });
});
