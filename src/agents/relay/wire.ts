// What the relay reads from the traffic it forwards, in the Anthropic Messages, OpenAI Chat Completions
// and OpenAI Responses formats: tool results in requests; text, tool calls and usage in replies
// (JSON bodies or SSE streams, parsed incrementally as they pass through).
import { type CallUsage, fromAnthropicUsage, fromOpenAIUsage, NO_CALL_USAGE } from "../usage.ts";

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
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v !== null && typeof v === "object" ? (v as Json) : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const parseArgs = (s: unknown): unknown => {
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
  };
}

/** Accumulates a streamed reply from SSE bytes as they pass through. */
export class StreamAccumulator {
  private buffer = "";
  private text = "";
  private usage: CallUsage = { ...NO_CALL_USAGE };
  private stopReason: string | null = null;
  private readonly calls = new Map<number, { id: string; name: string; args: string }>();
  private final: ReplySeen | null = null;

  constructor(private readonly api: WireApi) {}

  push(chunk: Buffer | string): void {
    this.buffer += chunk.toString();
    for (;;) {
      const end = this.buffer.search(/\r?\n\r?\n/);
      if (end < 0) return;
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end).replace(/^\r?\n\r?\n/, "");
      const data = block
        .split(/\r?\n/)
        .filter((l) => l.startsWith("data:"))
        .map((l) => l.slice(5).trimStart())
        .join("\n");
      if (!data || data === "[DONE]") continue;
      try {
        this.event(JSON.parse(data) as Json);
      } catch {
        // a malformed event is the harness's problem; the relay only observes
      }
    }
  }

  private event(e: Json): void {
    if (this.api === "anthropic") this.anthropic(e);
    else if (this.api === "openai-chat") this.chat(e);
    else if (e.type === "response.completed" || e.type === "response.incomplete") {
      this.final = replyOfJson("openai-responses", obj(e.response));
    } else if (e.type === "response.output_text.delta") this.text += String(e.delta ?? "");
  }

  private anthropic(e: Json): void {
    if (e.type === "message_start") {
      const u = fromAnthropicUsage(obj(obj(e.message).usage));
      this.usage = { ...u, output: Math.max(this.usage.output, u.output) };
    } else if (e.type === "content_block_start") {
      const block = obj(e.content_block);
      if (block.type === "tool_use") {
        this.calls.set(Number(e.index), { id: String(block.id), name: String(block.name), args: "" });
      }
    } else if (e.type === "content_block_delta") {
      const delta = obj(e.delta);
      if (delta.type === "text_delta") this.text += String(delta.text ?? "");
      const call = this.calls.get(Number(e.index));
      if (delta.type === "input_json_delta" && call) call.args += String(delta.partial_json ?? "");
    } else if (e.type === "message_delta") {
      const u = obj(e.usage);
      const later = fromAnthropicUsage(u);
      this.usage = {
        input: later.input || this.usage.input,
        cacheRead: later.cacheRead || this.usage.cacheRead,
        cacheWrite: later.cacheWrite || this.usage.cacheWrite,
        output: later.output || this.usage.output,
      };
      const stop = obj(e.delta).stop_reason;
      if (typeof stop === "string") this.stopReason = stop;
    }
  }

  private chat(e: Json): void {
    if (e.usage) this.usage = fromOpenAIUsage(obj(e.usage));
    const choice = obj(arr(e.choices)[0]);
    const delta = obj(choice.delta);
    if (typeof delta.content === "string") this.text += delta.content;
    for (const c of arr(delta.tool_calls).map(obj)) {
      const index = Number(c.index ?? 0);
      const call = this.calls.get(index) ?? { id: "", name: "", args: "" };
      const f = obj(c.function);
      if (c.id) call.id = String(c.id);
      if (f.name) call.name = String(f.name);
      if (typeof f.arguments === "string") call.args += f.arguments;
      this.calls.set(index, call);
    }
    if (typeof choice.finish_reason === "string") this.stopReason = choice.finish_reason;
  }

  result(): ReplySeen {
    if (this.final) return this.final;
    return {
      text: this.text,
      toolCalls: [...this.calls.values()].map((c) => ({
        id: c.id,
        name: c.name,
        input: parseArgs(c.args || "{}"),
      })),
      usage: this.usage,
      stopReason: this.stopReason,
    };
  }
}
