// What the relay reads from the traffic it forwards, in the Anthropic Messages, OpenAI Chat Completions
// and OpenAI Responses formats: tool results in requests; text, tool calls and usage in JSON replies
// (streamed replies: stream.ts).
import { type CallUsage, fromAnthropicUsage, fromOpenAIUsage } from "../usage.ts";

export type WireApi = "anthropic" | "openai-chat" | "openai-responses";

export interface ToolCallSeen {
  id: string;
  name: string;
  input: unknown;
}

export interface ToolResultSeen {
  id: string;
  output: string;
  isError: boolean;
}

export interface ReplySeen {
  text: string;
  toolCalls: ToolCallSeen[];
  usage: CallUsage;
  stopReason: string | null;
  /** The reply carried the provider's usage of the whole call (a JSON reply's, a stream's last event). */
  reported: boolean;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => v !== null && typeof v === "object" && !Array.isArray(v);
export const obj = (v: unknown): Json => (v !== null && typeof v === "object" ? (v as Json) : {});
export const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const parseArgs = (s: unknown): unknown => {
  if (typeof s !== "string") return s;
  try {
    return JSON.parse(s);
  } catch {
    return s;
  }
};

function textOfContent(content: unknown): string {
  if (typeof content === "string") return content;
  return arr(content)
    .map((p) => String(obj(p).text ?? ""))
    .join("");
}

/** The tool results at the end of a request: what the harness ran since the previous model call. */
export function toolResultsOf(api: WireApi, body: Json): ToolResultSeen[] {
  if (api === "anthropic") {
    const last = obj(arr(body.messages).at(-1));
    if (last.role !== "user") return [];
    return arr(last.content)
      .map(obj)
      .filter((b) => b.type === "tool_result")
      .map((b) => ({
        id: String(b.tool_use_id),
        output: textOfContent(b.content),
        isError: b.is_error === true,
      }));
  }
  const items = api === "openai-chat" ? arr(body.messages).map(obj) : arr(body.input).map(obj);
  const out: ToolResultSeen[] = [];
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i]!;
    if (api === "openai-chat" && item.role === "tool") {
      out.unshift({ id: String(item.tool_call_id), output: textOfContent(item.content), isError: false });
    } else if (api === "openai-responses" && item.type === "function_call_output") {
      out.unshift({ id: String(item.call_id), output: textOfContent(item.output), isError: false });
    } else break;
  }
  return out;
}

/**
 * Text the harness put into user turns (the instruction, reminders, a loaded skill's content), in
 * order; tool results are not included (see toolResultsOf).
 */
export function userTextsOf(api: WireApi, body: Json): string[] {
  if (api === "openai-responses") {
    if (typeof body.input === "string") return [body.input];
    return arr(body.input)
      .map(obj)
      .filter((i) => i.role === "user")
      .map((i) => textOfContent(i.content));
  }
  return arr(body.messages)
    .map(obj)
    .filter((m) => m.role === "user")
    .flatMap((m) =>
      typeof m.content === "string"
        ? [m.content]
        : arr(m.content)
            .map(obj)
            .filter((b) => b.type === "text")
            .map((b) => String(b.text)),
    );
}

/** The system prompt of a request, as text. */
export function systemOf(api: WireApi, body: Json): string {
  if (api === "anthropic") return textOfContent(body.system);
  if (api === "openai-responses") return typeof body.instructions === "string" ? body.instructions : "";
  return arr(body.messages)
    .map(obj)
    .filter((m) => m.role === "system" || m.role === "developer")
    .map((m) => textOfContent(m.content))
    .join("\n");
}

/** From a complete (non-streamed) JSON reply. */
export function replyOfJson(api: WireApi, body: Json): ReplySeen {
  if (api === "anthropic") {
    const blocks = arr(body.content).map(obj);
    return {
      text: blocks.map((b) => (b.type === "text" ? String(b.text) : "")).join(""),
      toolCalls: blocks
        .filter((b) => b.type === "tool_use")
        .map((b) => ({ id: String(b.id), name: String(b.name), input: b.input })),
      usage: fromAnthropicUsage(obj(body.usage)),
      stopReason: typeof body.stop_reason === "string" ? body.stop_reason : null,
      reported: isObject(body.usage),
    };
  }
  if (api === "openai-chat") {
    const choice = obj(arr(body.choices)[0]);
    const message = obj(choice.message);
    return {
      text: typeof message.content === "string" ? message.content : "",
      toolCalls: arr(message.tool_calls).map((c) => {
        const f = obj(obj(c).function);
        return { id: String(obj(c).id), name: String(f.name), input: parseArgs(f.arguments) };
      }),
      usage: fromOpenAIUsage(obj(body.usage)),
      stopReason: typeof choice.finish_reason === "string" ? choice.finish_reason : null,
      reported: isObject(body.usage),
    };
  }
  const output = arr(body.output).map(obj);
  return {
    text: output
      .filter((o) => o.type === "message")
      .flatMap((o) => arr(o.content).map((c) => String(obj(c).text ?? "")))
      .join(""),
    toolCalls: output
      .filter((o) => o.type === "function_call")
      .map((o) => ({ id: String(o.call_id), name: String(o.name), input: parseArgs(o.arguments) })),
    usage: fromOpenAIUsage(obj(body.usage)),
    stopReason: typeof body.status === "string" ? body.status : null,
    reported: isObject(body.usage),
  };
}
