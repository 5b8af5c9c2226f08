// The Anthropic Messages API through @anthropic-ai/sdk, streamed (long max_tokens need streaming).
import Anthropic from "@anthropic-ai/sdk";
import type { MessageParam, Tool } from "@anthropic-ai/sdk/resources/messages/messages";
import { fromAnthropicUsage } from "../usage.ts";
import { withCacheBreakpoints } from "./anthropic-cache.ts";
import { withEndpoint } from "./connection.ts";
import type { AssistantPart, ChatMessage, ChatModel, ModelReply, ModelRequest } from "./types.ts";

export interface AnthropicModelOptions {
  model: string;
  baseUrl: string;
  apiKey: string | null;
  /** Per-request timeout in milliseconds. */
  timeoutMs?: number;
  /** cache_control breakpoints (default on); off only to measure what caching saves. */
  promptCaching?: boolean;
}

function toParams(messages: ChatMessage[]): MessageParam[] {
  return messages.map((m): MessageParam => {
    if (m.role === "user") return { role: "user", content: m.text };
    if (m.role === "tool-results") {
      return {
        role: "user",
        content: m.results.map((r) => ({
          type: "tool_result" as const,
          tool_use_id: r.id,
          content: r.output,
          is_error: r.isError,
        })),
      };
    }
    return {
      role: "assistant",
      content: m.parts.map((p) =>
        p.type === "text"
          ? { type: "text" as const, text: p.text }
          : { type: "tool_use" as const, id: p.id, name: p.name, input: p.input },
      ),
    };
  });
}

const STOP: Record<string, string> = { end_turn: "end", tool_use: "tool-use", max_tokens: "max-tokens" };

export class AnthropicModel implements ChatModel {
  readonly provider = "anthropic";
  readonly model: string;
  private readonly client: Anthropic;
  private readonly promptCaching: boolean;
  private readonly endpoint: string;

  constructor(options: AnthropicModelOptions) {
    this.model = options.model;
    this.endpoint = `${options.baseUrl}/v1/messages`;
    this.promptCaching = options.promptCaching ?? true;
    this.client = new Anthropic({
      apiKey: options.apiKey ?? "no-key",
      baseURL: options.baseUrl,
      maxRetries: 0,
      timeout: options.timeoutMs ?? 600_000,
    });
  }

  async complete(request: ModelRequest): Promise<ModelReply> {
    const tools = request.tools.map(
      (t): Tool => ({
        name: t.name,
        description: t.description,
        input_schema: t.parameters as Tool["input_schema"],
      }),
    );
    const prompt = { system: request.system, tools, messages: toParams(request.messages) };
    const cached = this.promptCaching ? withCacheBreakpoints(prompt) : null;
    const system = cached ? cached.system : (request.system ?? undefined);
    const stream = this.client.messages.stream(
      {
        model: this.model,
        max_tokens: request.maxOutputTokens,
        messages: cached ? cached.messages : prompt.messages,
        ...(system ? { system } : {}),
        ...(tools.length ? { tools: cached ? cached.tools : tools } : {}),
        ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
        ...(request.toolChoice ? { tool_choice: { type: "tool" as const, name: request.toolChoice } } : {}),
      },
      { signal: request.signal },
    );
    const message = await stream.finalMessage().catch((err) => withEndpoint(err, this.endpoint));
    const parts: AssistantPart[] = [];
    for (const block of message.content) {
      if (block.type === "text") parts.push({ type: "text", text: block.text });
      else if (block.type === "tool_use") {
        const input = block.input;
        const isObject = input !== null && typeof input === "object" && !Array.isArray(input);
        parts.push({
          type: "tool-call",
          id: block.id,
          name: block.name,
          input: isObject ? (input as Record<string, unknown>) : {},
          ...(isObject ? {} : { inputError: "tool input must be a JSON object" }),
        });
      }
    }
    const stop = message.stop_reason ?? "unknown";
    return {
      parts,
      stopReason: Object.hasOwn(STOP, stop) ? STOP[stop]! : stop,
      usage: fromAnthropicUsage(message.usage as unknown as Record<string, unknown>),
      model: message.model ?? null,
    };
  }
}
