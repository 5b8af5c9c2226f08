// A conversation without tools: user turns sent one after another to a ChatModel under the
// configuration's retry policy and a wall-clock budget, every turn and reply in the trajectory: the
// agent phase of the inline form, and each question of the canary probe.
import {
  asTrialError,
  type ChatMessage,
  type ChatModel,
  type ResolvedAgentConfig,
  UsageMeter,
  withRetry,
} from "../agents/index.ts";
import { type TrialError, trialError, type Usage } from "../record/index.ts";
import type { FileTrajectory } from "./trajectory.ts";

/** Characters of one reply of a conversation (an inline trial's, a canary question's) kept in the trajectory and handed back. */
const CONVERSATION_REPLY_CHARS = 256 * 1024;

export interface ConverseOptions {
  config: ResolvedAgentConfig;
  model: ChatModel;
  system: string;
  turns: readonly string[];
  trajectory: FileTrajectory;
  /** Budget of the whole conversation. */
  timeoutSec: number;
  signal?: AbortSignal;
  /** Pins the retry jitter (tests). */
  random?: () => number;
}

export interface Conversation {
  /** The text of each reply (capped), one per turn answered. */
  replies: string[];
  /** The failure that ended the conversation early, or null. */
  error: TrialError | null;
  usage: Usage;
}

function replyText(parts: ReadonlyArray<{ type: string; text?: string }>): string {
  const text = parts.map((p) => (p.type === "text" ? (p.text ?? "") : "")).join("");
  return text.length > CONVERSATION_REPLY_CHARS ? text.slice(0, CONVERSATION_REPLY_CHARS) : text;
}

function failure(
  err: unknown,
  signal: AbortSignal,
  timeoutSec: number,
  cancelled: () => boolean,
): TrialError {
  if (cancelled()) return trialError("cancelled", "the run was cancelled");
  if (signal.aborted) return trialError("timeout", `no reply within ${timeoutSec} s`);
  return asTrialError(err);
}

/** Sends the turns in order; stops at the first failed call. Never throws. */
export async function converse(o: ConverseOptions): Promise<Conversation> {
  const meter = new UsageMeter(o.config.pricing ?? null);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), o.timeoutSec * 1000);
  const onCancel = () => controller.abort();
  if (o.signal?.aborted) onCancel();
  else o.signal?.addEventListener("abort", onCancel, { once: true });
  const signal = controller.signal;
  const messages: ChatMessage[] = [];
  const replies: string[] = [];
  let error: TrialError | null = null;
  try {
    for (const [i, turn] of o.turns.entries()) {
      messages.push({ role: "user", text: turn });
      o.trajectory.append({ type: "note", kind: "user", turn: i + 1, text: turn });
      const reply = await withRetry(
        () =>
          o.model.complete({
            system: o.system,
            messages,
            tools: [],
            maxOutputTokens: o.config.maxOutputTokens,
            temperature: o.config.temperature,
            signal,
          }),
        o.config.retry,
        { signal, random: o.random },
      );
      meter.add(reply.usage);
      const text = replyText(reply.parts);
      replies.push(text);
      messages.push({ role: "assistant", parts: [{ type: "text", text }] });
      o.trajectory.append({
        type: "model",
        turn: i + 1,
        model: reply.model,
        stopReason: reply.stopReason,
        usage: reply.usage,
        text,
      });
    }
  } catch (err) {
    error = failure(err, signal, o.timeoutSec, () => o.signal?.aborted === true);
    o.trajectory.append({ type: "error", kind: error.kind, text: error.message });
  } finally {
    clearTimeout(timer);
    o.signal?.removeEventListener("abort", onCancel);
  }
  return { replies, error, usage: meter.snapshot() };
}
