// The judges of a project: the agent configurations of kgate.config.json that judge criteria name,
// called from the host through the real SDKs with each configuration's retry policy and prices (the
// same as an agent's), temperature 0 unless configured (dropped where the provider refuses one), the
// answer forced through one tool. A judge that gives no verdict throws JudgeUnavailableError (the
// trial's `judge` error, never the agent's); a deliverable that breaks the judge is an `invalid` answer.

import type { ProjectPaths } from "../../project.ts";
import type { Usage } from "../../record/index.ts";
import { errorMessage, ModelCallError } from "../errors.ts";
import { loadAgentConfigs, type ResolvedAgentConfig, resolveApiKey } from "../load-config.ts";
import type { ChatModel, ModelReply, ModelRequest } from "../providers/types.ts";
import { withRetry } from "../retry.ts";
import { UsageMeter } from "../usage.ts";
import { readAnswer } from "./answer.ts";
import { type Deliverable, JUDGE_SYSTEM_PROMPT, judgeMessages, VERDICT_TOOL } from "./prompt.ts";

/** Output tokens a judge may spend on one answer (a verdict and a sentence or two). */
export const JUDGE_MAX_OUTPUT_TOKENS = 1024;
/** How long one judge request may take before it is retried as unreachable. */
export const JUDGE_CALL_TIMEOUT_MS = 120_000;

/** The judge gave no verdict: unknown configuration, key not set, provider down past the retries. */
export class JudgeUnavailableError extends Error {
  override name = "JudgeUnavailableError";
  constructor(
    readonly config: string,
    message: string,
  ) {
    super(message);
  }
}

export interface JudgeCallResult {
  /** `invalid`: the deliverable broke the judge (answer off its schema, a full context, refused content). */
  verdict: "pass" | "fail" | "invalid";
  reason: string;
  model: string | null;
  /** The temperature sent; null when the provider refused one. */
  temperature: number | null;
  usage: Usage;
}

export interface JudgePanel {
  /** Why the configuration cannot judge here (not in kgate.config.json, key not set), or null. */
  unavailable(config: string): string | null;
  /** The resolved configuration (its prices and caps: the cost bound), or why there is none. */
  configOf(config: string): ResolvedAgentConfig | string;
  /** One judgement of one criterion over the deliverables. */
  ask(
    config: string,
    criterion: string,
    deliverables: Deliverable[],
    signal?: AbortSignal,
  ): Promise<JudgeCallResult>;
}

export interface JudgePanelOptions {
  env?: NodeJS.ProcessEnv;
  callTimeoutMs?: number;
}

/** HTTP statuses of a request refused for what it carries: the deliverable is the only part a trial varies. */
const CONTENT_REFUSALS = new Set([400, 413, 422]);

/** A provider that refuses `temperature` for this model (OpenAI's reasoning models): sent again without it. */
function refusesTemperature(err: unknown): boolean {
  const status = (err as { status?: unknown } | null)?.status;
  return status === 400 && /temperature/i.test(errorMessage(err));
}

export function judgePanel(paths: ProjectPaths, options: JudgePanelOptions = {}): JudgePanel {
  const env = options.env ?? process.env;
  let loaded: ReturnType<typeof loadAgentConfigs> | undefined;
  const models = new Map<string, Promise<ChatModel>>();

  const configOf = (name: string): ResolvedAgentConfig | string => {
    loaded ??= loadAgentConfigs(paths);
    if (loaded.errors.length > 0) {
      const first = loaded.errors[0]!;
      return `${first.file}: ${first.field ? `${first.field}: ` : ""}${first.message}`;
    }
    const config = loaded.agents.find((a) => a.name === name);
    return config ?? `no agent configuration "${name}" in ${loaded.file} (the judge a judge criterion names)`;
  };

  const unavailable = (name: string): string | null => {
    const config = configOf(name);
    if (typeof config === "string") return config;
    if (resolveApiKey(config, env) === undefined)
      return `the judge "${name}" needs the environment variable ${config.apiKeyEnv} (its API key)`;
    return null;
  };

  const modelOf = (config: ResolvedAgentConfig): Promise<ChatModel> => {
    let model = models.get(config.name);
    if (!model) {
      const key = resolveApiKey(config, env) ?? null;
      const timeoutMs = options.callTimeoutMs ?? JUDGE_CALL_TIMEOUT_MS;
      model = import("../providers/index.ts").then((p) => p.createChatModel(config, key, { timeoutMs }));
      models.set(config.name, model);
    }
    return model;
  };

  async function ask(
    name: string,
    criterion: string,
    deliverables: Deliverable[],
    signal?: AbortSignal,
  ): Promise<JudgeCallResult> {
    const why = unavailable(name);
    if (why) throw new JudgeUnavailableError(name, why);
    const config = configOf(name) as ResolvedAgentConfig;
    const model = await modelOf(config);
    let temperature: number | null = config.temperature ?? 0;
    const request = (): ModelRequest => ({
      system: JUDGE_SYSTEM_PROMPT,
      messages: judgeMessages(criterion, deliverables),
      tools: [VERDICT_TOOL],
      toolChoice: VERDICT_TOOL.name,
      maxOutputTokens: Math.min(config.maxOutputTokens, JUDGE_MAX_OUTPUT_TOKENS),
      ...(temperature === null ? {} : { temperature }),
      ...(signal ? { signal } : {}),
    });
    const meter = new UsageMeter(config.pricing);
    const outcome = (verdict: JudgeCallResult["verdict"], reason: string, reply?: ModelReply) => ({
      verdict,
      reason,
      model: reply?.model ?? null,
      temperature,
      usage: meter.snapshot(),
    });
    let reply: ModelReply;
    try {
      reply = await withRetry(
        async () => {
          try {
            return await model.complete(request());
          } catch (err) {
            if (temperature === null || !refusesTemperature(err)) throw err;
            temperature = null;
            return await model.complete(request());
          }
        },
        config.retry,
        signal ? { signal } : {},
      );
    } catch (err) {
      if (!(err instanceof ModelCallError)) throw err;
      const { kind, status } = err.failure;
      if (kind === "context-overflow")
        return outcome("invalid", `the deliverable does not fit the judge's context: ${err.message}`);
      if (kind === "provider-rejected" && status !== undefined && CONTENT_REFUSALS.has(status))
        return outcome(
          "invalid",
          `the judge's provider refused the request (HTTP ${status}): ${err.message}`,
        );
      throw new JudgeUnavailableError(name, `${kind}: ${err.message}`);
    }
    meter.add(reply.usage);
    const read = readAnswer(reply);
    if (!read.ok) return outcome("invalid", read.why, reply);
    return outcome(read.answer.verdict, read.answer.reason, reply);
  }

  return { unavailable, configOf, ask };
}
