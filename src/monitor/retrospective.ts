// The retrospective questions after a trial's agent: KEEP/WITHDRAW, then BET/NO_BET, as further user
// turns of the built-in loop's finished conversation, or of a fresh follow-up conversation for an
// installed harness (follow-up.ts). No tool is run; tokens are counted apart; a failure is recorded
// in the outcome, never thrown (the trial's verdict does not depend on it).
import {
  asTrialError,
  type FinishedConversation,
  type FinishedHarnessRun,
  UsageMeter,
} from "../agents/index.ts";
import type { RetrospectiveOutcome, TrialError } from "../record/index.ts";
import { followUpConversation } from "./follow-up.ts";
import { type AskTurn, askQuestion, BET_QUESTION, KEEP_QUESTION, MAX_REPLY_CHARS } from "./questions.ts";

type ChatMessage = FinishedConversation["messages"][number];
type AssistantPart = Extract<ChatMessage, { role: "assistant" }>["parts"][number];

const NO_TOOLS_NOW = "No tool can be run now. Reply in words only.";

const textOf = (parts: readonly AssistantPart[]) =>
  parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("");

/**
 * Asks both questions; `turns` records every message sent and reply received. An installed harness's
 * run gets a fresh conversation whose first message carries the task, its final message and outputs.
 */
export function askRetrospectiveQuestions(
  finished: FinishedConversation | FinishedHarnessRun,
): Promise<RetrospectiveOutcome> {
  if ("kind" in finished && finished.kind === "harness") {
    const { conversation, preamble } = followUpConversation(finished);
    return askInConversation(conversation, "follow-up", preamble);
  }
  return askInConversation(finished as FinishedConversation, "same-conversation", "");
}

/** The two questions as user turns of `conversation`; `preamble` goes before the first message sent. */
async function askInConversation(
  conversation: FinishedConversation,
  mode: RetrospectiveOutcome["mode"],
  preamble: string,
): Promise<RetrospectiveOutcome> {
  const meter = new UsageMeter(conversation.pricing);
  const messages: ChatMessage[] = [...conversation.messages];
  const turns: RetrospectiveOutcome["turns"] = [];
  let current = "";
  const ask: AskTurn = async (sent) => {
    const message = turns.length === 0 ? preamble + sent : sent;
    messages.push({ role: "user", text: message });
    const reply = await conversation.model.complete({
      system: conversation.system,
      messages,
      tools: conversation.tools,
      maxOutputTokens: Math.min(conversation.maxOutputTokens, 256),
      temperature: conversation.temperature,
      signal: conversation.signal,
    });
    meter.add(reply.usage);
    messages.push({ role: "assistant", parts: reply.parts });
    const calls = reply.parts.filter((p) => p.type === "tool-call");
    if (calls.length > 0)
      messages.push({
        role: "tool-results",
        results: calls.map((c) => ({ id: c.id, name: c.name, output: NO_TOOLS_NOW, isError: true })),
      });
    const text = textOf(reply.parts);
    turns.push({ probe: current, message, reply: text.slice(0, MAX_REPLY_CHARS * 4) });
    return text;
  };
  const outcome = (
    keep: RetrospectiveOutcome["keep"],
    bet: RetrospectiveOutcome["bet"],
    error: TrialError | null,
  ) => ({ mode, keep, bet, turns, usage: meter.snapshot(), error });
  let keep: RetrospectiveOutcome["keep"] = null;
  try {
    current = KEEP_QUESTION.id;
    keep = (await askQuestion(ask, KEEP_QUESTION)).choice;
    current = BET_QUESTION.id;
    const bet = (await askQuestion(ask, BET_QUESTION)).choice;
    return outcome(keep, bet, null);
  } catch (err) {
    const failed = asTrialError(err);
    return outcome(keep, null, { ...failed, message: `probe ${current}: ${failed.message}` });
  }
}
