// What the relay lets through, per wire format, as data: the request fields, the `type` values any
// object of a request may carry (content blocks, sources, tools, tool choices, formats, citations),
// the keys that reference something outside the request (a URL, an uploaded file, a container), and
// the subtrees that are opaque to the provider (JSON schemas, a tool call's input). guard.ts walks a
// request against it; anything not listed is refused by its JSON path.
import type { WireApi } from "./wire.ts";

const COMMON = ["model", "stream", "temperature", "top_p", "metadata", "tools", "tool_choice", "user"];

/** Top-level request fields. Responses' `previous_response_id` and `conversation` are not among them. */
export const FIELDS: Record<WireApi, ReadonlySet<string>> = {
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
    "parallel_tool_calls",
    "text",
    "truncation",
    "include",
    "client_metadata",
    "prompt_cache_key",
  ]),
};

/** A list of exact `type` values and patterns (versioned client-side tools). */
interface Types {
  names: ReadonlySet<string>;
  patterns: readonly RegExp[];
}

/** Client-side tools of Anthropic: the harness runs them; the provider only names them. */
const ANTHROPIC_CLIENT_TOOLS = [/^bash_\d+$/, /^text_editor_\d+$/, /^memory_\d+$/];
/** Context-management edits and their triggers (`clear_tool_uses_20250919`, ...). */
const ANTHROPIC_EDITS = [/^clear_[a-z_]+_\d{8}$/];

/**
 * Every `type` value a request of the format may hold anywhere (outside opaque subtrees). Inline
 * content only: an image or document source is `base64`, `text` or `content` (never `url` or
 * `file`); the citation kinds are those that point into the request's own documents.
 */
export const TYPES: Record<WireApi, Types> = {
  anthropic: {
    names: new Set([
      // content blocks
      "text",
      "image",
      "document",
      "tool_use",
      "tool_result",
      "thinking",
      "redacted_thinking",
      // inline sources
      "base64",
      "content",
      // citations into the request's own documents
      "char_location",
      "page_location",
      "content_block_location",
      // cache_control
      "ephemeral",
      // tools and tool_choice
      "custom",
      "auto",
      "any",
      "tool",
      "none",
      // thinking
      "enabled",
      "disabled",
      "adaptive",
      // context_management triggers and what to keep
      "input_tokens",
      "tool_uses",
      "thinking_turns",
      "all",
      // output_config.format
      "json_schema",
    ]),
    patterns: [...ANTHROPIC_CLIENT_TOOLS, ...ANTHROPIC_EDITS],
  },
  "openai-chat": {
    names: new Set([
      // content parts (image_url: data: URLs only; file: inline file_data only)
      "text",
      "image_url",
      "input_audio",
      "file",
      "refusal",
      // tools, tool calls, tool_choice
      "function",
      "custom",
      "allowed_tools",
      // custom tools' input format
      "grammar",
      // response_format
      "json_object",
      "json_schema",
    ]),
    patterns: [],
  },
  "openai-responses": {
    names: new Set([
      // input items
      "message",
      "reasoning",
      "function_call",
      "function_call_output",
      "custom_tool_call",
      "custom_tool_call_output",
      "local_shell_call",
      "local_shell_call_output",
      // content parts (input_image: data: URLs only; input_file: inline file_data only)
      "input_text",
      "output_text",
      "input_image",
      "input_file",
      "refusal",
      "summary_text",
      "reasoning_text",
      // local_shell_call.action
      "exec",
      // tools (Codex's namespace holds tools of its own), tool_choice
      "function",
      "custom",
      "local_shell",
      "namespace",
      "allowed_tools",
      // custom tools' input format, text.format
      "text",
      "grammar",
      "json_object",
      "json_schema",
    ]),
    patterns: [],
  },
};

export function typeAllowed(api: WireApi, type: string): boolean {
  const t = TYPES[api];
  return t.names.has(type) || t.patterns.some((p) => p.test(type));
}

/** Keys whose string value is a URL the provider would fetch: only `data:` URLs are inline. */
export const URL_KEYS: ReadonlySet<string> = new Set(["url", "image_url", "file_url", "server_url", "uri"]);

/**
 * Keys that name something stored outside the request (an uploaded file, a container, a vector
 * store, an earlier response): refused whatever their value.
 */
export const REFERENCE_KEYS: ReadonlySet<string> = new Set([
  "file_id",
  "file_ids",
  "container",
  "container_id",
  "vector_store_ids",
  "previous_response_id",
  "conversation",
  "mcp_servers",
]);

/**
 * Subtrees the provider reads as data, not as content (a tool's JSON schema, the input of a tool
 * call, a structured-output schema): `key` under an object of a given `type` (null: any object),
 * or under a parent key. Their depth is still bounded; their `type` values are JSON schema's.
 */
export interface OpaquePlace {
  key: string;
  /** The `type` of the object holding `key` (tool_use's input), or null for any. */
  holderType?: string;
  /** The key the holding object sits under (`tools`, `format`, `json_schema`, `function`). */
  under?: string;
}

export const OPAQUE: Record<WireApi, readonly OpaquePlace[]> = {
  anthropic: [
    { key: "input_schema", under: "tools" },
    { key: "input", holderType: "tool_use" },
    { key: "schema", under: "format" },
  ],
  "openai-chat": [
    { key: "parameters", under: "function" },
    { key: "schema", under: "json_schema" },
  ],
  "openai-responses": [
    { key: "parameters", under: "tools" },
    { key: "schema", under: "format" },
  ],
};
