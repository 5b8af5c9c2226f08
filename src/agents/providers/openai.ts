// OpenAI Chat Completions through the `openai` SDK: OpenAI itself and every compatible server
// (vLLM, Ollama, OpenRouter, Together, DashScope).
import OpenAI from "openai";
import type {
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
} from "openai/resources/chat/completions";
import { fromOpenAIUsage } from "../usage.ts";
import { withEndpoint } from "./connection.ts";
import type { AssistantPart, ChatMessage, ChatModel, ModelReply, ModelRequest } from "./types.ts";

export interface OpenAIModelOptions {
  model: string;
  baseUrl: string;
  apiKey: string | null;
  /** OpenAI proper wants max_completion_tokens; compatible servers understand max_tokens. */
  maxTokensField: "max_completion_tokens" | "max_tokens";
  timeoutMs?: number;
}

function toParams(system: string | null, messages: ChatMessage[]): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = system ? [{ role: "system", content: system }] : [];
  for (const m of messages) {
    if (m.role === "user") out.push({ role: "user", content: m.text });
    else if (m.role === "tool-results") {
      for (const r of m.results) out.push({ role: "tool", tool_call_id: r.id, content: r.output });
    } else {
      const text = m.parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("");
      const calls = m.parts.flatMap((p) =>
        p.type === "tool-call"
          ? [
              {
                id: p.id,
                type: "function" as const,
                function: { name: p.name, arguments: p.rawArguments ?? JSON.stringify(p.input) },
              },
            ]
          : [],
      );
      out.push({ role: "assistant", content: text || null, ...(calls.length ? { tool_calls: calls } : {}) });
    }
  }
  return out;
}

function parseArguments(raw: string): { input: Record<string, unknown>; inputError?: string } {
  try {
    const value = JSON.parse(raw || "{}") as unknown;
    if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      return { input: value as Record<string, unknown> };
    }
    return { input: {}, inputError: "tool arguments must be a JSON object" };
  } catch (err) {
    return { input: {}, inputError: `tool arguments are not valid JSON: ${(err as Error).message}` };
  }
}

const STOP: Record<string, string> = { stop: "end", tool_calls: "tool-use", length: "max-tokens" };

export class OpenAIModel implements ChatModel {
  readonly provider = "openai";
  readonly model: string;
  private readonly client: OpenAI;

  constructor(private readonly options: OpenAIModelOptions) {
    this.model = options.model;
    this.client = new OpenAI({
      apiKey: options.apiKey ?? "no-key",
      baseURL: options.baseUrl,
      maxRetries: 0,
      timeout: options.timeoutMs ?? 600_000,
    });
  }

  async complete(request: ModelRequest): Promise<ModelReply> {
    const params: ChatCompletionCreateParamsNonStreaming = {
      model: this.model,
      messages: toParams(request.system, request.messages),
      [this.options.maxTokensField]: request.maxOutputTokens,
      ...(request.tools.length
        ? {
            tools: request.tools.map((t) => ({
              type: "function" as const,
              function: {
                name: t.name,
                description: t.description,
                parameters: t.parameters,
                ...(t.strict ? { strict: true } : {}),
              },
            })),
          }
        : {}),
      ...(request.toolChoice
        ? { tool_choice: { type: "function" as const, function: { name: request.toolChoice } } }
        : {}),
      ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    };
    const completion = await this.client.chat.completions
      .create(params, { signal: request.signal })
      .catch((err) => withEndpoint(err, `${this.options.baseUrl}/chat/completions`));
    const choice = completion.choices[0];
    const parts: AssistantPart[] = [];
    if (choice?.message.content) parts.push({ type: "text", text: choice.message.content });
    for (const call of choice?.message.tool_calls ?? []) {
      if (call.type !== "function") continue;
      parts.push({
        type: "tool-call",
        id: call.id,
        name: call.function.name,
        rawArguments: call.function.arguments,
        ...parseArguments(call.function.arguments),
      });
    }
    const stop = choice?.finish_reason ?? "unknown";
    return {
      parts,
      stopReason: Object.hasOwn(STOP, stop) ? STOP[stop]! : stop,
      usage: fromOpenAIUsage(completion.usage as unknown as Record<string, unknown>),
      model: completion.model ?? null,
    };
  }
}
