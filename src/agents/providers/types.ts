// The provider-neutral conversation the built-in loop keeps, and the one call every provider offers.
import type { CallUsage } from "../usage.ts";

/** A tool as the model sees it: name, description and a JSON Schema of its input object. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  /** The arguments must fit `parameters` exactly (OpenAI's strict function calling; others ignore it). */
  strict?: boolean;
}

export interface ToolCallPart {
  type: "tool-call";
  id: string;
  name: string;
  input: Record<string, unknown>;
  /** The arguments as the provider sent them (OpenAI sends a JSON string). */
  rawArguments?: string;
  /** Set when the arguments were not a JSON object; the loop reports it back to the model. */
  inputError?: string;
}

export type AssistantPart = { type: "text"; text: string } | ToolCallPart;

export interface ToolResult {
  id: string;
  name: string;
  output: string;
  isError: boolean;
}

export type ChatMessage =
  | { role: "user"; text: string }
  | { role: "assistant"; parts: AssistantPart[] }
  | { role: "tool-results"; results: ToolResult[] };

export interface ModelRequest {
  system: string | null;
  messages: ChatMessage[];
  tools: ToolSpec[];
  maxOutputTokens: number;
  temperature?: number;
  /** The name of a tool of `tools` the model must call (tool forcing: a judge's answer schema). */
  toolChoice?: string;
  signal?: AbortSignal;
}

export interface ModelReply {
  parts: AssistantPart[];
  /** `end` (the model stopped by itself), `tool-use`, `max-tokens`, or the provider's own word. */
  stopReason: string;
  usage: CallUsage;
  /** The model that answered, as the provider reports it. */
  model: string | null;
}

/** One model call, no retries (the caller retries with its policy). */
export interface ChatModel {
  readonly provider: string;
  readonly model: string;
  complete(request: ModelRequest): Promise<ModelReply>;
}
