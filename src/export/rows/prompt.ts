// The prompt of an exported row: the task's inline form (kgate's single-turn form: the instruction
// byte-identical, each file of the condition in its own fenced block labelled with its path, the
// artefact among them under +A, then the answer format) as chat messages. Under the ignorance-aware
// reward, the three choices of the prospective protocol come first, in its words and payoffs.
import { prospectiveChoices } from "../../monitor/index.ts";
import { type Condition, INLINE_SYSTEM_PROMPT, type LoadedTask, renderInline } from "../../task/index.ts";
import type { RewardScheme } from "./ground-truth.ts";

export interface ChatMessage {
  role: "system" | "user";
  content: string;
}

/** How a single-turn row takes the choice: an answer is the answer itself, not the word. */
export const ROW_CHOICE_LINE =
  "To work on it as it stands, answer now in the format asked at the end. Otherwise reply with exactly one word: REQUEST_SPEC or DECLINE.\n\n";

export function rowPrompt(task: LoadedTask, condition: Condition, scheme: RewardScheme): ChatMessage[] {
  const inline = renderInline(task, condition);
  const choices =
    scheme.scheme === "ignorance-aware" ? prospectiveChoices(scheme.schedule) + ROW_CHOICE_LINE : "";
  return [
    { role: "system", content: INLINE_SYSTEM_PROMPT },
    { role: "user", content: `${choices}${inline.text}` },
  ];
}
