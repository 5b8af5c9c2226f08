// The exam's prompts (quoted in docs/exam.md: change both together): the reasoning turn, baseline
// or with explicit planning (and the optional attribution marker), and the greedy answer-extraction
// turn; and the parser of its `Qk: answer` lines.
import { z } from "zod";

export const ExamPrompt = z.enum(["baseline", "planning"]);
export type ExamPrompt = z.infer<typeof ExamPrompt>;

export interface PromptQuestion {
  position: number;
  points: number;
  text: string;
}

/**
 * The attribution marker (`--name-questions`): asks the model to name each question it works on, so
 * that effort can be attributed by its markers. Off by default: the protocol's prompts ask for no
 * particular order or split.
 */
export const NAME_QUESTIONS_CLAUSE = 'When you work on a question, name it ("Question 3" or "Q3").';

export const PLANNING_CLAUSE =
  "Before you solve anything, plan the allocation first: decide which questions to attempt, in which order, and roughly how many tokens to spend on each; then follow your plan.";

/**
 * The reasoning turn: every question with its points, the shared budget, the scoring rule; with
 * `nameQuestions`, the attribution marker after the sentence on order and effort.
 */
export function examPrompt(
  questions: readonly PromptQuestion[],
  budget: number,
  prompt: ExamPrompt,
  nameQuestions: boolean,
): string {
  const total = questions.reduce((sum, q) => sum + q.points, 0);
  const lines = [
    `This exam has ${questions.length} questions worth ${total} points in total; each question shows its points.`,
    `You have one budget of ${budget} tokens for your reasoning on the whole exam; anything beyond it is cut off.`,
    "Your score is the sum of the points of the questions you answer correctly, divided by the total.",
    `You may work on the questions in any order and spend as much or as little on each as you choose.${nameQuestions ? ` ${NAME_QUESTIONS_CLAUSE}` : ""}`,
    "You will be asked for your final answers afterwards.",
  ];
  if (prompt === "planning") lines.push(PLANNING_CLAUSE);
  lines.push("");
  for (const q of questions) lines.push(`Question ${q.position} (${q.points} points): ${q.text}`, "");
  return lines.join("\n").trimEnd();
}

/** The sampling temperature of the extraction turn, whatever the configuration's: greedy decoding. */
export const EXTRACTION_TEMPERATURE = 0;

/** The extraction turn, after the reasoning trace; not counted against the budget; greedy. */
export function extractionPrompt(count: number): string {
  return [
    `Now give your final answers, one line per question, in exactly this form: "Q1: <answer>" up to "Q${count}: <answer>".`,
    'Write "Q<k>: -" for a question you did not answer. Write nothing else.',
  ].join("\n");
}

// "Q2: x", "**Q2:** x", "**Q2: x**", "Question 2) x"
const ANSWER_LINE = /^\s*\**\s*Q(?:uestion)?\s*(\d+)\s*\**\s*[:.)]\s*\**\s*(.*?)\s*\**\s*$/i;
const ANSWER_CAP = 2000;

/** The answers of an extraction reply by position (the first line per position wins; `-` is no answer). */
export function parseAnswers(reply: string, count: number): Map<number, string> {
  const answers = new Map<number, string>();
  for (const line of reply.split(/\r?\n/)) {
    const m = ANSWER_LINE.exec(line);
    if (!m) continue;
    const position = Number(m[1]);
    if (position < 1 || position > count || answers.has(position)) continue;
    const text = m[2]!.trim().slice(0, ANSWER_CAP);
    if (text !== "" && text !== "-") answers.set(position, text);
  }
  return answers;
}
