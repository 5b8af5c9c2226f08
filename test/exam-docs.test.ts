// docs/exam.md quotes the exam's prompts exactly: rendered from src/exam/prompts.ts for its example.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { examPrompt, extractionPrompt, NAME_QUESTIONS_CLAUSE, PLANNING_CLAUSE } from "../src/exam/index.ts";

const DOC = readFileSync(path.resolve(import.meta.dirname, "../docs/exam.md"), "utf8");
const QUESTIONS = [
  { position: 1, points: 12, text: "What is 3 + 4?" },
  { position: 2, points: 5, text: "Name the capital of France." },
];

describe("docs/exam.md", () => {
  it("quotes the baseline reasoning prompt, the planning line, the marker and the extraction prompt", () => {
    expect(DOC).toContain(examPrompt(QUESTIONS, 2000, "baseline", false));
    expect(DOC).toContain(PLANNING_CLAUSE);
    expect(examPrompt(QUESTIONS, 2000, "planning", false)).toContain(PLANNING_CLAUSE);
    expect(DOC).toContain(NAME_QUESTIONS_CLAUSE);
    // --name-questions adds the marker to the line on order and effort, as the page says
    const line = examPrompt(QUESTIONS, 2000, "baseline", true).split("\n")[3];
    expect(DOC).toContain(line);
    expect(DOC).toContain(extractionPrompt(2));
  });
});
