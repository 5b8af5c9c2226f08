// Agent configurations as zod schemas: the single source of truth for kgate.config.json; and the
// limits of one trial of a configuration on a task (the tighter of the two).
import { z } from "zod";
import { Slug } from "../task/index.ts";

export const CONFIG_SCHEMA_VERSION = 1;

/** `builtin` runs the tool loop on the host; the others are CLI harnesses installed in the harness image. */
export const HarnessName = z.enum(["builtin", "claude-code", "codex", "opencode"]);

/** `openai-compatible` covers vLLM, Ollama, OpenRouter, Together, DashScope and any Chat Completions server. */
export const ProviderName = z.enum(["anthropic", "openai", "openai-compatible"]);

/** Names reserved by the agents that need no configuration. */
export const RESERVED_AGENT_NAMES = ["oracle", "noop"] as const;

const EnvVarName = z
  .string()
  .regex(
    /^[A-Za-z_][A-Za-z0-9_]*$/,
    "must name an environment variable (e.g. ANTHROPIC_API_KEY); never put the key itself in the file",
  );

const RATES = {
  /** USD per million uncached input tokens. */
  inputPerMTok: z.number().nonnegative(),
  /** USD per million output tokens. */
  outputPerMTok: z.number().nonnegative(),
  /** USD per million tokens read from the prompt cache (defaults to the input price). */
  cacheReadPerMTok: z.number().nonnegative().optional(),
  /** USD per million tokens written to the prompt cache for 5 minutes (defaults to the input price). */
  cacheWritePerMTok: z.number().nonnegative().optional(),
  /**
   * USD per million tokens written to the prompt cache for 1 hour (Anthropic's `ttl: "1h"`, published
   * at 2x the input price). Unset: the relay refuses a request that asks for 1-hour writes.
   */
  cacheWrite1hPerMTok: z.number().nonnegative().optional(),
};

/**
 * A long-context tier: a call whose input (uncached + cache reads + cache writes) is above
 * `aboveInputTokens` is billed whole at these rates (Anthropic's 1M-context models above 200K,
 * DashScope's tiers); the highest tier whose threshold the call passes applies.
 */
export const PriceTier = z.object({ aboveInputTokens: z.number().int().positive(), ...RATES }).strict();

export const Pricing = z
  .object({
    ...RATES,
    /** Long-context tiers, by ascending threshold (none: one price at every length). */
    tiers: z.array(PriceTier).optional(),
  })
  .strict()
  .superRefine((p, ctx) => {
    const at = (p.tiers ?? []).map((t) => t.aboveInputTokens);
    at.forEach((threshold, i) => {
      if (i > 0 && threshold <= at[i - 1]!) {
        ctx.addIssue({
          code: "custom",
          path: ["tiers", i, "aboveInputTokens"],
          message: "tiers go by ascending aboveInputTokens, each threshold once",
        });
      }
    });
  });

export const RetryPolicy = z
  .object({
    /** Retries after the first attempt on 429, 5xx and connection errors. */
    maxRetries: z.number().int().min(0).max(20).default(5),
    /** First back-off delay; doubled per retry, with full jitter, capped at maxDelayMs. */
    baseDelayMs: z.number().int().min(0).default(1000),
    maxDelayMs: z.number().int().min(0).default(60_000),
  })
  .strict();

export const SystemPromptPolicy = z
  .object({
    /**
     * `default`: kgate's neutral prompt (builtin) or the harness's own (installed); `none`: no system
     * prompt; `replace`: `text` instead of the default; `append`: the default followed by `text`.
     */
    mode: z.enum(["default", "none", "replace", "append"]).default("default"),
    text: z.string().min(1).optional(),
  })
  .strict()
  .refine((p) => (p.mode === "replace" || p.mode === "append") === (p.text !== undefined), {
    message: "`text` is required for modes replace and append, and not allowed otherwise",
    path: ["text"],
  });

export const BuiltinTools = z
  .object({
    /** Wall-clock cap of one bash call, enforced inside the sandbox. */
    bashTimeoutSec: z.number().int().positive().default(120),
    /** Bytes of stdout and of stderr each that a tool result keeps and the model sees. */
    outputCapBytes: z.number().int().min(256).default(16_384),
  })
  .strict();

export const AgentConfig = z
  .object({
    description: z.string().optional(),
    harness: HarnessName,
    provider: ProviderName,
    model: z.string().min(1),
    /** API root; defaults per provider (https://api.anthropic.com, https://api.openai.com/v1). */
    baseUrl: z.url({ protocol: /^https?$/ }).optional(),
    /** Environment variable holding the API key; null for servers that need none (local vLLM/Ollama). */
    apiKeyEnv: EnvVarName.nullable().optional(),
    /** Sampling temperature; omitted = the provider's default. */
    temperature: z.number().min(0).max(2).optional(),
    maxTurns: z.number().int().positive().default(50),
    /** max_tokens of one model call. */
    maxOutputTokens: z.number().int().positive().default(8192),
    /** Total tokens (input + cache + output) across a trial; the task's limits.maxTokens also applies. */
    tokenBudget: z.number().int().positive().default(2_000_000),
    /**
     * Output tokens (reasoning included where the provider reports it) across a trial; none by default.
     * Triage's regime E sets it to a unit's allocation, which is counted in output tokens.
     */
    outputTokenBudget: z.number().int().positive().optional(),
    /** Wall-clock budget of the agent phase; the task's limits.timeoutSec also applies. */
    timeoutSec: z.number().int().positive().default(1800),
    systemPrompt: SystemPromptPolicy.prefault({}),
    /** USD per million tokens; null = no cost accounting. */
    pricing: Pricing.nullable().default(null),
    retry: RetryPolicy.prefault({}),
    /** Built-in harness only. */
    tools: BuiltinTools.prefault({}),
    /**
     * Anthropic betas the relay passes on in `anthropic-beta` (the others a harness asks for are
     * dropped); none unless listed. A beta changes what the API does, so the list is digested.
     */
    anthropicBetas: z
      .array(z.string().regex(/^[a-z0-9][a-z0-9.-]*$/, "a beta name such as context-management-2025-06-27"))
      .optional(),
    /** Sent by the relay as `OpenAI-Organization` (a harness's own is dropped); not digested. */
    openaiOrganization: z.string().min(1).optional(),
    /** Sent by the relay as `OpenAI-Project` (a harness's own is dropped); not digested. */
    openaiProject: z.string().min(1).optional(),
  })
  .strict()
  .superRefine((c, ctx) => {
    if (c.provider === "openai-compatible" && !c.baseUrl) {
      ctx.addIssue({
        code: "custom",
        path: ["baseUrl"],
        message: "required for provider openai-compatible (e.g. http://localhost:11434/v1 for Ollama)",
      });
    }
    if (c.harness === "claude-code" && c.provider !== "anthropic") {
      ctx.addIssue({
        code: "custom",
        path: ["provider"],
        message: "harness claude-code speaks the Anthropic Messages API: provider must be anthropic",
      });
    }
    const modes: Record<string, string[]> = {
      "claude-code": ["default", "replace", "append"],
      codex: ["default", "append"],
      opencode: ["default"],
    };
    const allowed = modes[c.harness];
    if (allowed && !allowed.includes(c.systemPrompt.mode)) {
      ctx.addIssue({
        code: "custom",
        path: ["systemPrompt", "mode"],
        message: `harness ${c.harness} supports the system prompt modes ${allowed.join(", ")}`,
      });
    }
    if (c.anthropicBetas !== undefined && c.provider !== "anthropic") {
      ctx.addIssue({ code: "custom", path: ["anthropicBetas"], message: "only for provider anthropic" });
    }
    const longContext = (c.anthropicBetas ?? []).find((b) => b.startsWith("context-1m"));
    if (longContext && c.pricing && !c.pricing.tiers?.length) {
      ctx.addIssue({
        code: "custom",
        path: ["pricing", "tiers"],
        message: `beta ${longContext} lets a call send more than 200K input tokens, which Anthropic bills at its long-context rates: add them as a tier ({ "aboveInputTokens": 200000, ... }), or drop the beta`,
      });
    }
    for (const field of ["openaiOrganization", "openaiProject"] as const) {
      if (c[field] !== undefined && c.provider === "anthropic") {
        ctx.addIssue({
          code: "custom",
          path: [field],
          message: "only for providers openai and openai-compatible",
        });
      }
    }
    if (c.harness === "codex" && c.provider === "anthropic") {
      ctx.addIssue({
        code: "custom",
        path: ["provider"],
        message:
          "harness codex speaks the OpenAI Responses API: provider must be openai or openai-compatible",
      });
    }
    if (c.harness === "opencode" && c.provider === "anthropic") {
      ctx.addIssue({
        code: "custom",
        path: ["provider"],
        message:
          "harness opencode is wired to Chat Completions through the relay: provider must be openai or openai-compatible",
      });
    }
  });

/**
 * The relay's caps unless kgate.config.json `relay` sets them: 8 MiB bodies, 4 requests, 64
 * connections, 32 calls the provider refuses per trial, 600 s of upstream silence per call.
 */
export const RELAY_DEFAULTS = {
  maxBodyBytes: 8 * 1024 * 1024,
  maxInFlight: 4,
  maxConnections: 64,
  maxRejectedCalls: 32,
  upstreamTimeoutSec: 600,
  requestTimeoutSec: 30,
} as const;

/**
 * The model relay's caps (kgate.config.json `relay`), against a hostile harness: the largest request
 * body (refused before parsing), a trial's requests in flight, the relay socket's connections (one
 * relay per agent configuration, shared by its trials), the model calls of a trial the provider may
 * refuse (4xx) before the relay forwards no more, and how long an upstream call may send nothing.
 */
export const RelaySettings = z
  .object({
    maxBodyBytes: z
      .number()
      .int()
      .min(1024)
      .max(64 * 1024 * 1024)
      .default(RELAY_DEFAULTS.maxBodyBytes),
    maxInFlight: z.number().int().min(1).max(64).default(RELAY_DEFAULTS.maxInFlight),
    maxConnections: z.number().int().min(1).max(4096).default(RELAY_DEFAULTS.maxConnections),
    maxRejectedCalls: z.number().int().min(1).max(10_000).default(RELAY_DEFAULTS.maxRejectedCalls),
    upstreamTimeoutSec: z.number().int().min(1).max(3600).default(RELAY_DEFAULTS.upstreamTimeoutSec),
    /** A request's head and body must reach the relay within this (a slow sender holds no slot longer). */
    requestTimeoutSec: z.number().int().min(1).max(600).default(RELAY_DEFAULTS.requestTimeoutSec),
  })
  .strict();

const PhaseSec = z.number().int().min(1).max(86_400).optional();

/**
 * The `trial` part of kgate.config.json: each timed phase's bound in seconds, for a host where
 * creating a sandbox or copying outputs takes longer than the defaults (src/trial/budget.ts).
 */
export const TrialSettings = z
  .object({
    phaseBoundsSec: z
      .object({
        create: PhaseSec,
        copyIn: PhaseSec,
        stop: PhaseSec,
        copyOut: PhaseSec,
        remove: PhaseSec,
        verify: PhaseSec,
        agentGrace: PhaseSec,
      })
      .strict()
      .prefault({}),
  })
  .strict();

export const KgateConfig = z
  .object({
    $schema: z.string().optional(),
    schemaVersion: z.literal(CONFIG_SCHEMA_VERSION).default(CONFIG_SCHEMA_VERSION),
    agents: z.record(Slug, AgentConfig).default({}),
    relay: RelaySettings.prefault({}),
    trial: TrialSettings.prefault({}),
    /**
     * Calibration settings: the shape is CalibrationConfig (src/calibrate/config.ts), checked by the
     * calibration commands, which own it; here only its place in the file is reserved.
     */
    calibration: z.record(z.string(), z.unknown()).optional(),
    /** The sandbox provider: its shape is SandboxConfig (src/sandbox/config.ts), checked there. */
    sandbox: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

export type HarnessName = z.infer<typeof HarnessName>;
export type ProviderName = z.infer<typeof ProviderName>;
export type Pricing = z.infer<typeof Pricing>;
export type PriceTier = z.infer<typeof PriceTier>;
export type RetryPolicy = z.infer<typeof RetryPolicy>;
export type RelaySettings = z.infer<typeof RelaySettings>;
export type TrialSettings = z.infer<typeof TrialSettings>;
export type SystemPromptPolicy = z.infer<typeof SystemPromptPolicy>;
export type AgentConfig = z.infer<typeof AgentConfig>;
export type AgentConfigInput = z.input<typeof AgentConfig>;
export type KgateConfig = z.infer<typeof KgateConfig>;

export const DEFAULT_BASE_URLS: Record<ProviderName, string | null> = {
  anthropic: "https://api.anthropic.com",
  openai: "https://api.openai.com/v1",
  "openai-compatible": null,
};

export const DEFAULT_KEY_ENVS: Record<ProviderName, string | null> = {
  anthropic: "ANTHROPIC_API_KEY",
  openai: "OPENAI_API_KEY",
  "openai-compatible": null,
};

/**
 * The limits a configuration sets on each of its trials; a trial's budget (src/trial/budget.ts) takes
 * the tighter of these and the task's.
 */
export type AgentLimits = Pick<AgentConfig, "maxTurns" | "tokenBudget" | "timeoutSec" | "outputTokenBudget">;
