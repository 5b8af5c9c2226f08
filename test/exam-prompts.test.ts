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
      false,
    );
    expect(text).toMatch(/^This exam has 2 questions worth 17 points in total/); // 3 + 14
    expect(text).toContain("one budget of 900 tokens");
    expect(text).toContain("Question 2 (14 points): B?");
    expect(text).not.toContain("plan the allocation first");
    // the protocol asks for no particular order or split: no attribution marker unless asked for
    expect(text).not.toContain("name it");
    expect(text).toContain(
      "You may work on the questions in any order and spend as much or as little on each as you choose.\n",
    );
    expect(extractionPrompt(4)).toContain('"Q4: <answer>"');
  });
});

describe("the attribution marker (--name-questions)", () => {
  it("is one sentence after the line on order and effort, only when asked for", () => {
    const questions = [{ position: 1, points: 3, text: "A?" }];
    const marked = examPrompt(questions, 900, "planning", true).split("\n");
    expect(marked[3]).toBe(
      'You may work on the questions in any order and spend as much or as little on each as you choose. When you work on a question, name it ("Question 3" or "Q3").',
    );
    // the rest of the prompt is the same with and without it
    const plain = examPrompt(questions, 900, "planning", false).split("\n");
    expect(marked.filter((_, i) => i !== 3)).toEqual(plain.filter((_, i) => i !== 3));
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
