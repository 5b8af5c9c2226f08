// Anthropic prompt caching for the built-in loop: `cache_control` breakpoints on the system prompt,
// the tool definitions and the growing conversation, within the API's limit of 4 per request.
import type { MessageParam, TextBlockParam, Tool } from "@anthropic-ai/sdk/resources/messages/messages";

/** The Messages API refuses a request with more than 4 cache_control blocks. */
export const MAX_BREAKPOINTS = 4;
const EPHEMERAL = { type: "ephemeral" } as const;

type Block = Exclude<MessageParam["content"], string>[number];

/** Text content as a block list always: a message reads the same whether it is marked or not. */
function asBlocks(message: MessageParam): MessageParam {
  if (typeof message.content !== "string") return message;
  return { ...message, content: [{ type: "text", text: message.content }] } as MessageParam;
}

function markLastBlock(message: MessageParam): MessageParam {
  const blocks = [...(asBlocks(message).content as Block[])];
  const last = blocks.at(-1);
  if (!last || last.type === "thinking" || last.type === "redacted_thinking") return message;
  blocks[blocks.length - 1] = { ...last, cache_control: EPHEMERAL } as Block;
  return { ...message, content: blocks } as MessageParam;
}

/**
 * The request's cached parts: the last tool and the system prompt (stable for the whole trial), and
 * the last block of the last two user messages: the newest one writes this turn's prefix, the one
 * before reads what the previous turn wrote (an exact hit, without relying on the 20-block lookback).
 */
export function withCacheBreakpoints(request: {
  system: string | null;
  tools: Tool[];
  messages: MessageParam[];
}): { system?: TextBlockParam[]; tools: Tool[]; messages: MessageParam[] } {
  const tools = request.tools.map((t, i) =>
    i === request.tools.length - 1 ? { ...t, cache_control: EPHEMERAL } : t,
  );
  const system = request.system
    ? [{ type: "text" as const, text: request.system, cache_control: EPHEMERAL }]
    : undefined;
  const used = (tools.length > 0 ? 1 : 0) + (system ? 1 : 0);
  const userIndexes = request.messages.flatMap((m, i) => (m.role === "user" ? [i] : []));
  const marked = new Set(userIndexes.slice(-(MAX_BREAKPOINTS - used)));
  const messages = request.messages.map((m, i) => (marked.has(i) ? markLastBlock(m) : asBlocks(m)));
  return { ...(system ? { system } : {}), tools, messages };
}
