// A streamed reply as it passes through the relay (Anthropic Messages, OpenAI Chat Completions, OpenAI
// Responses): bytes decoded as UTF-8 across chunk boundaries (a character split between two network
// chunks stays whole), events parsed by eventsource-parser (the SSE spec's LF, CR and CRLF line ends),
// and read for text, tool calls, usage, and whether the format's last event with the call's usage came.
import { createParser, type EventSourceParser } from "eventsource-parser";
import { type CallUsage, fromAnthropicUsage, fromOpenAIUsage, NO_CALL_USAGE } from "../usage.ts";
import { arr, obj, parseArgs, type ReplySeen, replyOfJson, type WireApi } from "./wire.ts";

type Json = Record<string, unknown>;

/** Most characters of one unfinished event the parser holds (a provider's events are kilobytes). */
const MAX_EVENT_CHARS = 16 * 1024 * 1024;

export class StreamAccumulator {
  private readonly decoder = new TextDecoder("utf-8");
  private readonly parser: EventSourceParser;
  private text = "";
  private usage: CallUsage = { ...NO_CALL_USAGE };
  private stopReason: string | null = null;
  /** The format's event that carries the whole call's usage has come. */
  private usageFinal = false;
  private readonly calls = new Map<number, { id: string; name: string; args: string }>();
  private final: ReplySeen | null = null;
  /** An event past MAX_EVENT_CHARS stopped the parser: nothing after it is read (nor reported). */
  private broken = false;
  /** The last character fed: a CR the parser holds (it may start a CRLF) is a line end at the stream's end. */
  private lastChar = "";

  constructor(private readonly api: WireApi) {
    this.parser = createParser({
      onEvent: (message) => {
        if (!message.data || message.data === "[DONE]") return;
        let event: unknown;
        try {
          event = JSON.parse(message.data);
        } catch {
          return; // a malformed event is the harness's problem; the relay only observes
        }
        this.event(obj(event));
      },
      onError: (error) => {
        if (error.type === "max-buffer-size-exceeded") this.broken = true;
      },
      maxBufferSize: MAX_EVENT_CHARS,
    });
  }

  push(chunk: Uint8Array): void {
    this.feed(this.decoder.decode(chunk, { stream: true }));
  }

  /** The stream ended: what the decoder still held is flushed (an unfinished event is dropped). */
  end(): void {
    this.feed(this.decoder.decode());
    // eventsource-parser 3 waits for the byte after a CR; "\n" completes it as CRLF, one line end.
    if (this.lastChar === "\r") this.feed("\n");
  }

  private feed(text: string): void {
    if (this.broken || text === "") return;
    this.lastChar = text[text.length - 1]!;
    try {
      this.parser.feed(text);
    } catch {
      this.broken = true;
    }
  }

  private event(e: Json): void {
    if (this.api === "anthropic") this.anthropic(e);
    else if (this.api === "openai-chat") this.chat(e);
    else if (["response.completed", "response.incomplete", "response.failed"].includes(String(e.type))) {
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
      // its counts are cumulative: each one given replaces the one from message_start
      const later = fromAnthropicUsage(obj(e.usage));
      this.usage = {
        input: later.input || this.usage.input,
        cacheRead: later.cacheRead || this.usage.cacheRead,
        cacheWrite: later.cacheWrite || this.usage.cacheWrite,
        cacheWrite1h: later.cacheWrite1h || this.usage.cacheWrite1h,
        output: later.output || this.usage.output,
      };
      const stop = obj(e.delta).stop_reason;
      if (typeof stop === "string") this.stopReason = stop;
    } else if (e.type === "message_stop") this.usageFinal = true;
  }

  private chat(e: Json): void {
    // with stream_options.include_usage, the last chunk carries the usage (the others null)
    if (e.usage !== null && typeof e.usage === "object") {
      this.usage = fromOpenAIUsage(obj(e.usage));
      this.usageFinal = true;
    }
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

  /** What the stream said so far; `reported` once the event with the whole call's usage came. */
  result(): ReplySeen {
    if (this.final) return { ...this.final, reported: this.final.reported && !this.broken };
    return {
      text: this.text,
      toolCalls: [...this.calls.values()].map((c) => ({
        id: c.id,
        name: c.name,
        input: parseArgs(c.args || "{}"),
      })),
      usage: this.usage,
      stopReason: this.stopReason,
      reported: this.usageFinal && !this.broken,
    };
  }
}
