// Test support: the wire formats of the loopback model server — Anthropic Messages, OpenAI Chat
// Completions and OpenAI Responses, as JSON bodies and as SSE event sequences.
import { randomUUID } from "node:crypto";

export interface ScriptedToolCall {
  name: string;
  input: Record<string, unknown>;
}

export interface ReplyUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

export interface ResolvedReply {
  text: string;
  toolCalls: ScriptedToolCall[];
  usage: ReplyUsage;
  model: string;
  /** `length` when the script says the reply was cut off at max tokens. */
  truncated: boolean;
}

const id = (prefix: string) => `${prefix}_${randomUUID().replaceAll("-", "").slice(0, 24)}`;

export function anthropicMessage(r: ResolvedReply) {
  const content: unknown[] = [];
  if (r.text) content.push({ type: "text", text: r.text });
  for (const call of r.toolCalls)
    content.push({ type: "tool_use", id: id("toolu"), name: call.name, input: call.input });
  const stop = r.truncated ? "max_tokens" : r.toolCalls.length > 0 ? "tool_use" : "end_turn";
  return {
    id: id("msg"),
    type: "message",
    role: "assistant",
    model: r.model,
    content,
    stop_reason: stop,
    stop_sequence: null,
    usage: {
      input_tokens: r.usage.input,
      output_tokens: r.usage.output,
      cache_read_input_tokens: r.usage.cacheRead,
      cache_creation_input_tokens: r.usage.cacheWrite,
    },
  };
}

export function anthropicEvents(r: ResolvedReply): Array<[string, unknown]> {
  const message = anthropicMessage(r);
  const events: Array<[string, unknown]> = [
    [
      "message_start",
      {
        type: "message_start",
        message: {
          ...message,
          content: [],
          stop_reason: null,
          usage: { ...message.usage, output_tokens: 1 },
        },
      },
    ],
  ];
  message.content.forEach((block, index) => {
    const b = block as { type: string; text?: string; id?: string; name?: string; input?: unknown };
    if (b.type === "text") {
      events.push([
        "content_block_start",
        { type: "content_block_start", index, content_block: { type: "text", text: "" } },
      ]);
      const text = b.text ?? "";
      const half = Math.ceil(text.length / 2);
      for (const piece of [text.slice(0, half), text.slice(half)].filter(Boolean)) {
        events.push([
          "content_block_delta",
          { type: "content_block_delta", index, delta: { type: "text_delta", text: piece } },
        ]);
      }
    } else {
      events.push([
        "content_block_start",
        {
          type: "content_block_start",
          index,
          content_block: { type: "tool_use", id: b.id, name: b.name, input: {} },
        },
      ]);
      const json = JSON.stringify(b.input);
      const half = Math.ceil(json.length / 2);
      for (const piece of [json.slice(0, half), json.slice(half)]) {
        events.push([
          "content_block_delta",
          { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: piece } },
        ]);
      }
    }
    events.push(["content_block_stop", { type: "content_block_stop", index }]);
  });
  events.push([
    "message_delta",
    {
      type: "message_delta",
      delta: { stop_reason: message.stop_reason, stop_sequence: null },
      usage: { output_tokens: r.usage.output },
    },
  ]);
  events.push(["message_stop", { type: "message_stop" }]);
  return events;
}

function openaiUsage(u: ReplyUsage) {
  const prompt = u.input + u.cacheRead;
  return {
    prompt_tokens: prompt,
    completion_tokens: u.output,
    total_tokens: prompt + u.output,
    prompt_tokens_details: { cached_tokens: u.cacheRead },
  };
}

export function chatCompletion(r: ResolvedReply) {
  const toolCalls = r.toolCalls.map((c) => ({
    id: id("call"),
    type: "function",
    function: { name: c.name, arguments: JSON.stringify(c.input) },
  }));
  return {
    id: id("chatcmpl"),
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: r.model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: r.text || null,
          ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
        },
        finish_reason: r.truncated ? "length" : toolCalls.length ? "tool_calls" : "stop",
        logprobs: null,
      },
    ],
    usage: openaiUsage(r.usage),
  };
}

export function chatCompletionChunks(r: ResolvedReply, includeUsage: boolean): unknown[] {
  const full = chatCompletion(r);
  const choice = full.choices[0]!;
  const base = { id: full.id, object: "chat.completion.chunk", created: full.created, model: r.model };
  const chunks: unknown[] = [
    { ...base, choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] },
  ];
  if (r.text)
    chunks.push({ ...base, choices: [{ index: 0, delta: { content: r.text }, finish_reason: null }] });
  (choice.message.tool_calls ?? []).forEach((call, index) => {
    chunks.push({
      ...base,
      choices: [
        {
          index: 0,
          delta: {
            tool_calls: [
              { index, id: call.id, type: "function", function: { name: call.function.name, arguments: "" } },
            ],
          },
          finish_reason: null,
        },
      ],
    });
    chunks.push({
      ...base,
      choices: [
        {
          index: 0,
          delta: { tool_calls: [{ index, function: { arguments: call.function.arguments } }] },
          finish_reason: null,
        },
      ],
    });
  });
  chunks.push({ ...base, choices: [{ index: 0, delta: {}, finish_reason: choice.finish_reason }] });
  if (includeUsage) chunks.push({ ...base, choices: [], usage: full.usage });
  return chunks;
}

export function responsesObject(r: ResolvedReply) {
  const output: unknown[] = [];
  if (r.text) {
    output.push({
      type: "message",
      id: id("msg"),
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: r.text, annotations: [] }],
    });
  }
  for (const call of r.toolCalls) {
    output.push({
      type: "function_call",
      id: id("fc"),
      call_id: id("call"),
      name: call.name,
      arguments: JSON.stringify(call.input),
      status: "completed",
    });
  }
  return {
    id: id("resp"),
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    status: "completed",
    model: r.model,
    output,
    usage: {
      input_tokens: r.usage.input + r.usage.cacheRead,
      input_tokens_details: { cached_tokens: r.usage.cacheRead },
      output_tokens: r.usage.output,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: r.usage.input + r.usage.cacheRead + r.usage.output,
    },
  };
}

export function responsesEvents(r: ResolvedReply): Array<[string, unknown]> {
  const response = responsesObject(r);
  const events: Array<[string, unknown]> = [
    [
      "response.created",
      { type: "response.created", response: { ...response, status: "in_progress", output: [], usage: null } },
    ],
  ];
  if (r.text)
    events.push([
      "response.output_text.delta",
      { type: "response.output_text.delta", output_index: 0, delta: r.text },
    ]);
  events.push(["response.completed", { type: "response.completed", response }]);
  return events;
}

export function errorBody(api: "anthropic" | "openai", status: number, message: string) {
  if (api === "anthropic") {
    const type = status === 429 ? "rate_limit_error" : status >= 500 ? "api_error" : "invalid_request_error";
    return { type: "error", error: { type, message } };
  }
  return { error: { message, type: status === 429 ? "rate_limit_exceeded" : "server_error", code: null } };
}
