// Test support: a scripted exam-taker for the loopback model server. On the reasoning turn it works
// the questions in presentation order, spending 3 (N - k + 1) filler words on question k, and reports
// twice its trace's pieces as output tokens; on the extraction turn it answers every question right
// except the last one presented. Questions must read "What is a + b?". Imports nothing of vitest, so
// bench/exam.ts can use it (the project of such an exam is exam-project.ts).
import type { ScriptStep, SeenRequest } from "./model-server.ts";

export interface ExamQuestion {
  position: number;
  points: number;
  sum: number;
}

function userTexts(request: SeenRequest): string[] {
  const messages = request.body.messages as Array<{ role: string; content: unknown }>;
  return messages
    .filter((m) => m.role === "user")
    .map((m) =>
      typeof m.content === "string"
        ? m.content
        : (m.content as Array<{ text?: string }>).map((b) => b.text ?? "").join(""),
    );
}

export function questionsOf(prompt: string): ExamQuestion[] {
  return [...prompt.matchAll(/Question (\d+) \((\d+) points\): What is (\d+) \+ (\d+)\?/g)].map((m) => ({
    position: Number(m[1]),
    points: Number(m[2]),
    sum: Number(m[3]) + Number(m[4]),
  }));
}

/** The trace: "I go in order." then per question "Question k: step x m so the answer is S." */
export function examTrace(questions: readonly ExamQuestion[]): string {
  const n = questions.length;
  const parts = ["I go in order."];
  for (const q of questions)
    parts.push(
      `Question ${q.position}: ${"step ".repeat(3 * (n - q.position + 1))}so the answer is ${q.sum}.`,
    );
  return parts.join(" ");
}

const PIECE = /[\p{L}\p{N}_]+|[^\s\p{L}\p{N}_]/gu;

export function inOrderExamTaker(): (request: SeenRequest) => ScriptStep {
  return (request) => {
    const texts = userTexts(request);
    const questions = questionsOf(texts[0] ?? "");
    if (texts.length === 1) {
      const trace = examTrace(questions);
      return { text: trace, usage: { input: 100, output: 2 * (trace.match(PIECE) ?? []).length } };
    }
    const last = questions.length;
    const lines = questions.map((q) => `Q${q.position}: ${q.position === last ? q.sum + 1 : q.sum}`);
    return { text: lines.join("\n"), usage: { input: 200, output: 5 * questions.length } };
  };
}
