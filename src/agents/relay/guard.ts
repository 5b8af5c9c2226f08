// What the relay lets through to the provider: an allowlist of request fields, tool types and content
// blocks that cannot make the provider fetch anything on the agent's behalf (no MCP connectors, URL
// sources, hosted web or code tools), and the rewrite that forces the configured model and caps the
// output tokens. A request is judged as sent; anything not on the list is refused by name.
import type { WireApi } from "./wire.ts";

type Json = Record<string, unknown>;

const COMMON = ["model", "stream", "temperature", "top_p", "metadata", "tools", "tool_choice", "user"];
const FIELDS: Record<WireApi, ReadonlySet<string>> = {
  anthropic: new Set([
    ...COMMON,
    "messages",
    "system",
    "max_tokens",
    "stop_sequences",
    "top_k",
    "thinking",
    "service_tier",
    "context_management",
    "output_config",
  ]),
  "openai-chat": new Set([
    ...COMMON,
    "messages",
    "max_tokens",
    "max_completion_tokens",
    "stream_options",
    "stop",
    "seed",
    "response_format",
    "parallel_tool_calls",
    "reasoning_effort",
    "frequency_penalty",
    "presence_penalty",
    "n",
    "store",
    "prompt_cache_key",
  ]),
  "openai-responses": new Set([
    ...COMMON,
    "input",
    "instructions",
    "max_output_tokens",
    "reasoning",
    "store",
    "previous_response_id",
    "parallel_tool_calls",
    "text",
    "truncation",
    "include",
    "client_metadata",
    "prompt_cache_key",
  ]),
};

/** The field that holds the output-token cap in each wire format. */
const MAX_TOKENS_FIELD: Record<WireApi, string> = {
  anthropic: "max_tokens",
  "openai-chat": "max_completion_tokens",
  "openai-responses": "max_output_tokens",
};

/** Client-side tools: the harness runs them in the sandbox; the provider only names them. */
const CLIENT_TOOL = /^(custom|function|local_shell|bash_\d+|text_editor_\d+|memory_\d+)$/;
const ANTHROPIC_BLOCKS = new Set(["text", "tool_use", "tool_result", "thinking", "redacted_thinking"]);
const OPENAI_PARTS = new Set(["text", "input_text", "output_text", "refusal"]);
/** Responses input items: messages, reasoning, and the calls and outputs of client-side tools. */
const RESPONSES_ITEMS = new Set([
  "message",
  "reasoning",
  "function_call",
  "function_call_output",
  "custom_tool_call",
  "custom_tool_call_output",
  "local_shell_call",
  "local_shell_call_output",
]);

const obj = (v: unknown): Json => (v && typeof v === "object" && !Array.isArray(v) ? (v as Json) : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** An inline image or document is fine; a URL or an uploaded file id makes the provider fetch. */
function inlineSource(source: unknown): boolean {
  const type = obj(source).type;
  return type === "base64" || type === "text" || type === "content";
}

function anthropicBlock(block: unknown, where: string, nested: boolean): string | null {
  if (typeof block === "string") return null;
  const b = obj(block);
  const type = String(b.type);
  if (type === "image" || type === "document") {
    return inlineSource(b.source)
      ? null
      : `${where}: a ${type} block with a ${String(obj(b.source).type)} source`;
  }
  if (!ANTHROPIC_BLOCKS.has(type) || (nested && type === "tool_result")) {
    return `${where}: content block type "${type}"`;
  }
  if (type === "tool_result") return anthropicContent(b.content, `${where}.content`, true);
  return null;
}

function anthropicContent(content: unknown, where: string, nested = false): string | null {
  if (typeof content === "string") return null;
  for (const [i, block] of arr(content).entries()) {
    const bad = anthropicBlock(block, `${where}[${i}]`, nested);
    if (bad) return bad;
  }
  return null;
}

function openaiPart(part: unknown, where: string): string | null {
  if (typeof part === "string") return null;
  const p = obj(part);
  const type = String(p.type);
  if (type === "image_url" || type === "input_image") {
    const url = typeof p.image_url === "string" ? p.image_url : obj(p.image_url).url;
    return typeof url === "string" && url.startsWith("data:")
      ? null
      : `${where}: an image that is not a data: URL`;
  }
  return OPENAI_PARTS.has(type) ? null : `${where}: content part type "${type}"`;
}

function openaiContent(content: unknown, where: string): string | null {
  if (typeof content === "string") return null;
  for (const [i, part] of arr(content).entries()) {
    const bad = openaiPart(part, `${where}[${i}]`);
    if (bad) return bad;
  }
  return null;
}

function messagesProblem(api: WireApi, body: Json): string | null {
  if (api === "openai-responses") {
    if (typeof body.input === "string") return null;
    for (const [i, item] of arr(body.input).entries()) {
      const it = obj(item);
      const type = typeof it.type === "string" ? it.type : "message";
      if (!RESPONSES_ITEMS.has(type)) return `input[${i}]: item type "${type}"`;
      if (type === "message") {
        const bad = openaiContent(it.content, `input[${i}].content`);
        if (bad) return bad;
      }
    }
    return null;
  }
  const check = api === "anthropic" ? anthropicContent : openaiContent;
  for (const [i, m] of arr(body.messages).entries()) {
    const bad = check(obj(m).content, `messages[${i}].content`, false);
    if (bad) return bad;
  }
  return api === "anthropic" ? anthropicContent(body.system, "system") : null;
}

/** Why the provider could fetch something for this request (field, tool or block named), or null. */
export function egressProblem(api: WireApi, body: Json): string | null {
  for (const key of Object.keys(body)) {
    if (!FIELDS[api].has(key)) return `request field "${key}"`;
  }
  return toolsProblem(body.tools, "tools") ?? messagesProblem(api, body);
}

/** A hosted tool among `tools` (a top-level namespace, as Codex sends, holds tools of its own). */
function toolsProblem(tools: unknown, where: string): string | null {
  for (const [i, tool] of arr(tools).entries()) {
    const type = obj(tool).type;
    if (type === "namespace" && where === "tools") {
      const bad = toolsProblem(obj(tool).tools, `${where}[${i}].tools`);
      if (bad) return bad;
    } else if (type !== undefined && !(typeof type === "string" && CLIENT_TOOL.test(type))) {
      return `${where}[${i}]: hosted tool type "${String(type)}"`;
    }
  }
  return null;
}

/** The output-token cap the request asked for (null when it named none). */
export function requestedMaxTokens(api: WireApi, body: Json): number | null {
  const asked = body[MAX_TOKENS_FIELD[api]] ?? (api === "openai-chat" ? body.max_tokens : undefined);
  return typeof asked === "number" && Number.isFinite(asked) ? asked : null;
}

/** Forces the model and sets the output cap, in the field the request used (Chat has two). */
export function forceModelAndCap(api: WireApi, body: Json, model: string | null, maxTokens: number): void {
  if (model !== null) body.model = model;
  const legacy = api === "openai-chat" && "max_tokens" in body && !("max_completion_tokens" in body);
  body[legacy ? "max_tokens" : MAX_TOKENS_FIELD[api]] = maxTokens;
}
