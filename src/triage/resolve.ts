// The budget re-solve variant of compliance (`--resolve`, item pools): each planned item is asked
// again with its allocation written in its prompt and as its max_tokens, then scored as live regime E.
import type { ChatModel, RetryPolicy } from "../agents/index.ts";
import type { Item } from "../task/index.ts";
import { itemPrompt, runItemUnit } from "./item-unit.ts";
import type { UnitRunner } from "./live.ts";

/** The sentence put before the item's prompt in a re-solve. */
export function budgetSentence(tokens: number): string {
  return `You have a budget of ${tokens} tokens for this question.`;
}

export function resolvePrompt(item: Item, tokens: number): string {
  return `${budgetSentence(tokens)}\n\n${itemPrompt(item)}`;
}

/** Runs an item unit with `cap` output tokens, the same cap stated in its prompt. */
export function resolveItemRunner(model: ChatModel, temperature: number, retry: RetryPolicy): UnitRunner {
  return (unit, cap, _at, signal) => {
    if (unit.source.kind !== "item") throw new Error(`unit ${unit.id} is not an item`);
    const item = unit.source.item;
    return runItemUnit(
      model,
      item,
      { maxOutputTokens: cap, temperature, retry, signal },
      resolvePrompt(item, cap),
    );
  };
}
