// Phase 0 of an item unit: one single-turn model call (no tools, temperature 0 unless the
// configuration sets one, a generous output cap), its cost in output tokens and its correctness.
import { type ChatModel, type RetryPolicy, withRetry } from "../agents/index.ts";
import { checkItemAnswer, type Item } from "../task/index.ts";

/** Kept of a reply in the records (replies are attacker-controlled text). */
export const MAX_KEPT_REPLY_CHARS = 16_384;

export const ANSWER_INSTRUCTION = "End your reply with one line of the form `ANSWER: <your answer>`.";

export interface UnitOutcome {
  cost: number;
  correct: boolean;
  /** The reply was cut off at the token cap. */
  capped: boolean;
  answer: string;
  reply: string;
  stopReason: string;
  inputTokens: number;
  /** Cache tokens read and written (model-call units). */
  cacheTokens?: number;
  /** USD spent, when the unit knows it (a task unit's trial; a reused one: 0). */
  costUsd?: number | null;
  /** A task unit's trial, relative to the triage run's folder (`<trial id>` or `live/<plan>/<trial id>`). */
  trial?: string;
}

/** The text after the last `ANSWER:`, else the whole reply. */
export function extractAnswer(reply: string): string {
  const at = reply.toUpperCase().lastIndexOf("ANSWER:");
  const tail = at < 0 ? reply : reply.slice(at + "ANSWER:".length);
  return (tail.split(/\r?\n/).find((l) => l.trim() !== "") ?? "").trim();
}

export function itemPrompt(item: Item): string {
  const options = item.choices ? `\n\nOptions: ${item.choices.join(", ")}` : "";
  return `${item.prompt}${options}\n\n${ANSWER_INSTRUCTION}`;
}

/** One call under the configuration's retry policy (transient provider errors, with back-off). */
export async function runItemUnit(
  model: ChatModel,
  item: Item,
  limits: { maxOutputTokens: number; temperature: number; retry: RetryPolicy; signal?: AbortSignal },
  prompt = itemPrompt(item),
): Promise<UnitOutcome> {
  const reply = await withRetry(
    () =>
      model.complete({
        system: null,
        messages: [{ role: "user", text: prompt }],
        tools: [],
        maxOutputTokens: limits.maxOutputTokens,
        temperature: limits.temperature,
        signal: limits.signal,
      }),
    limits.retry,
    { signal: limits.signal },
  );
  const text = reply.parts
    .filter((p) => p.type === "text")
    .map((p) => p.text)
    .join("")
    .slice(0, MAX_KEPT_REPLY_CHARS * 4);
  const answer = extractAnswer(text).slice(0, 1000);
  const capped = reply.stopReason === "max-tokens";
  return {
    cost: reply.usage.output,
    correct: checkItemAnswer(item, answer),
    capped,
    answer,
    reply: text.slice(0, MAX_KEPT_REPLY_CHARS),
    stopReason: reply.stopReason,
    inputTokens: reply.usage.input,
    cacheTokens: reply.usage.cacheRead + reply.usage.cacheWrite,
  };
}
