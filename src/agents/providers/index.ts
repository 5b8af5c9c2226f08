// The provider layer's public face: a ChatModel for a configuration, through the official SDKs.
import type { ResolvedAgentConfig } from "../load-config.ts";
import { AnthropicModel } from "./anthropic.ts";
import { OpenAIModel } from "./openai.ts";
import type { ChatModel } from "./types.ts";

export { modelsUrl, PING_TIMEOUT_MS, type PingResult, pingEndpoint } from "./ping.ts";
export * from "./types.ts";
export { AnthropicModel, OpenAIModel };

/** A configuration's model; `timeoutMs` bounds each request (default: the provider class's, 600 s). */
export function createChatModel(
  config: Pick<ResolvedAgentConfig, "provider" | "model" | "baseUrl">,
  apiKey: string | null,
  options: { timeoutMs?: number } = {},
): ChatModel {
  if (config.provider === "anthropic") {
    return new AnthropicModel({ model: config.model, baseUrl: config.baseUrl, apiKey, ...options });
  }
  return new OpenAIModel({
    model: config.model,
    baseUrl: config.baseUrl,
    apiKey,
    maxTokensField: config.provider === "openai" ? "max_completion_tokens" : "max_tokens",
    ...options,
  });
}
