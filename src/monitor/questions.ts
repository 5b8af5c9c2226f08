// The question prompts (retrospective KEEP/WITHDRAW and BET/NO_BET; the prospective choice) and their
// strict parsing: the reply must be the one word, up to case, spaces and surrounding punctuation.
import { DEFAULT_PAYOFF, type PayoffSchedule } from "./payoff.ts";

export interface ChoiceQuestion<C extends string> {
  id: string;
  prompt: string;
  choices: readonly C[];
  /** Sent once when the first reply cannot be read. */
  reAsk: string;
}

export const KEEP_QUESTION: ChoiceQuestion<"KEEP" | "WITHDRAW"> = {
  id: "keep",
  prompt:
    "Your work on this task is finished; it has not been checked yet. Decide now whether to KEEP " +
    "your answer, so that it is scored (credit if it is correct, a penalty if it is wrong), or to " +
    "WITHDRAW it, so that it is not scored. Reply with exactly one word: KEEP or WITHDRAW.",
  choices: ["KEEP", "WITHDRAW"],
  reAsk: "Your reply could not be read. Reply with exactly one word: KEEP or WITHDRAW.",
};

export const BET_QUESTION: ChoiceQuestion<"BET" | "NO_BET"> = {
  id: "bet",
  prompt:
    "Would you bet that your answer is correct? A bet gains if it is correct and loses if it is " +
    "wrong. Reply with exactly one word: BET or NO_BET.",
  choices: ["BET", "NO_BET"],
  reAsk: "Your reply could not be read. Reply with exactly one word: BET or NO_BET.",
};

export type ProspectiveChoice = "ANSWER_DIRECTLY" | "REQUEST_SPEC" | "DECLINE";

/**
 * The three choices with the schedule's payoffs, one line each after the opening line: the same
 * words in the prospective probe and in an exported row's ignorance-aware prompt.
 */
export function prospectiveChoices(schedule: PayoffSchedule = DEFAULT_PAYOFF): string {
  const n = (v: number) => String(v);
  return (
    "Before you start the task below, choose how to proceed.\n" +
    `- ANSWER_DIRECTLY: work on it as it stands. Scored ${n(schedule.direct.correct)} if correct, ${n(schedule.direct.wrong)} if wrong.\n` +
    `- REQUEST_SPEC: receive the specification the task refers to (placed in your working directory), then work on it. Scored ${n(schedule.withSpec.correct)} if correct, ${n(schedule.withSpec.wrong)} if wrong.\n` +
    `- DECLINE: do not attempt it. Scored ${n(schedule.decline)}.\n`
  );
}

/** The prospective choice shown before a -A trial, with the payoffs of the schedule in its text. */
export function prospectiveQuestion(
  instruction: string,
  schedule: PayoffSchedule = DEFAULT_PAYOFF,
): ChoiceQuestion<ProspectiveChoice> {
  return {
    id: "prospective",
    prompt:
      prospectiveChoices(schedule) +
      "Reply with exactly one word: ANSWER_DIRECTLY, REQUEST_SPEC or DECLINE. Do not start the task yet.\n\n" +
      `<task>\n${instruction}\n</task>`,
    choices: ["ANSWER_DIRECTLY", "REQUEST_SPEC", "DECLINE"],
    reAsk:
      "Your reply could not be read. Reply with exactly one word: ANSWER_DIRECTLY, REQUEST_SPEC or DECLINE.",
  };
}

/** Replies longer than this are not read at all (a one-word answer is a few bytes). */
export const MAX_REPLY_CHARS = 200;

export type ParseFailure = "empty" | "too-long" | "both" | "neither" | "extra-text";
export type Parsed<C extends string> = { ok: true; choice: C } | { ok: false; failure: ParseFailure };

/** Spaces or hyphens between the parts of a two-part word read as the underscore. */
const canonicalWords = (text: string) =>
  text.toUpperCase().replace(/\b(NO|ANSWER|REQUEST)[\s-]+(BET|DIRECTLY|SPEC)\b/g, "$1_$2");

/**
 * Strict reading of a forced-choice reply: after upper-casing and trimming spaces, punctuation and
 * Markdown around it, the reply must be exactly one of the choices. Otherwise it says why not: both
 * (or several) choices named, none named, or a choice wrapped in other words.
 */
export function parseChoice<C extends string>(reply: string, choices: readonly C[]): Parsed<C> {
  if (reply.length > MAX_REPLY_CHARS) return { ok: false, failure: "too-long" };
  const text = canonicalWords(reply).replace(/^[\s\p{P}\p{S}]+|[\s\p{P}\p{S}]+$/gu, "");
  if (text === "") return { ok: false, failure: "empty" };
  const exact = choices.find((c) => c === text);
  if (exact) return { ok: true, choice: exact };
  const words = new Set(text.split(/[^A-Z_]+/));
  const named = choices.filter((c) => words.has(c));
  return { ok: false, failure: named.length > 1 ? "both" : named.length === 0 ? "neither" : "extra-text" };
}

export interface QuestionOutcome<C extends string> {
  question: string;
  /** null: still unreadable after the one re-ask (`unparsed`). */
  choice: C | null;
  /** Every reply, capped, in order (one, or two after a re-ask). */
  replies: string[];
  failures: ParseFailure[];
}

/** One turn of the conversation: sends a user message, returns the model's reply text. */
export type AskTurn = (message: string) => Promise<string>;

/** Asks a question; one re-ask when the reply cannot be read, then gives up with choice null. */
export async function askQuestion<C extends string>(
  ask: AskTurn,
  question: ChoiceQuestion<C>,
): Promise<QuestionOutcome<C>> {
  const replies: string[] = [];
  const failures: ParseFailure[] = [];
  for (const message of [question.prompt, question.reAsk]) {
    const reply = await ask(message);
    replies.push(reply.slice(0, MAX_REPLY_CHARS * 4));
    const parsed = parseChoice(reply, question.choices);
    if (parsed.ok) return { question: question.id, choice: parsed.choice, replies, failures };
    failures.push(parsed.failure);
  }
  return { question: question.id, choice: null, replies, failures };
}
