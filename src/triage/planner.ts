// Phase 1: asks the planner model for a plan, reads it defensively, re-asks once when the reply is
// not a plan, and gives up after that (the plan then scores V = 0). Every reply is kept as written.
import type { ChatMessage, ChatModel } from "../agents/index.ts";
import { MAX_PLAN_CHARS, type ParsedPlan, parsePlan } from "./plan.ts";
import { REASK } from "./prompt.ts";

/** Kept of each plan reply in the records and report (the whole reply, up to MAX_PLAN_CHARS, is parsed). */
export const MAX_KEPT_PLAN_REPLY_CHARS = 65_536;

export interface PlannerReply {
  text: string;
  outputTokens: number;
  /** Tokens sent (uncached, cache read and written). */
  inputTokens: number;
  stopReason: string;
}

export interface PlannerOutcome {
  /** The plan as read, or null when neither the reply nor the re-ask gave one. */
  parsed: (ParsedPlan & { ok: true }) | null;
  /** Why the last reply was not a plan (when parsed is null), else null. */
  failure: string | null;
  /** The replies as the model wrote them (cut at MAX_KEPT_PLAN_REPLY_CHARS), first then the re-ask's. */
  replies: PlannerReply[];
}

export async function askForPlan(
  model: ChatModel,
  prompt: string,
  knownIds: ReadonlySet<string>,
  budget: number,
  limits: { maxOutputTokens: number; temperature: number; signal?: AbortSignal },
): Promise<PlannerOutcome> {
  const messages: ChatMessage[] = [{ role: "user", text: prompt }];
  const replies: PlannerReply[] = [];
  let last: ParsedPlan = { ok: false, reason: "no reply" };
  for (let attempt = 0; attempt < 2; attempt++) {
    if (attempt === 1) messages.push({ role: "user", text: REASK });
    const reply = await model.complete({ system: null, messages: [...messages], tools: [], ...limits });
    const text = reply.parts
      .filter((p) => p.type === "text")
      .map((p) => p.text)
      .join("")
      .slice(0, MAX_PLAN_CHARS + 1);
    replies.push({
      text: text.slice(0, MAX_KEPT_PLAN_REPLY_CHARS),
      outputTokens: reply.usage.output,
      stopReason: reply.stopReason,
      inputTokens: reply.usage.input + reply.usage.cacheRead + reply.usage.cacheWrite,
    });
    last = parsePlan(text, knownIds, budget);
    if (last.ok) return { parsed: last, failure: null, replies };
    messages.push({
      role: "assistant",
      parts: [{ type: "text", text: text.slice(0, MAX_KEPT_PLAN_REPLY_CHARS) }],
    });
  }
  return { parsed: null, failure: last.ok ? null : last.reason, replies };
}
