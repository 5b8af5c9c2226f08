// The built-in harness as an Agent: one configuration, the tool loop, the provider through its SDK.

import type { SandboxRequirements } from "../record/index.ts";
import { trialError, ZERO_USAGE } from "../record/index.ts";
import type { AdaptiveLimit } from "./adaptive-limit.ts";
import { openedFrom, placedArtefact } from "./artefact.ts";
import type { AgentLimits, Pricing } from "./config.ts";
import { CallLedger } from "./ledger.ts";
import { type ResolvedAgentConfig, resolveApiKey } from "./load-config.ts";
import { runToolLoop } from "./loop.ts";
import { buildSystemPrompt } from "./prompt.ts";
import type { ChatModel } from "./providers/types.ts";
import { TOOL_SPECS } from "./tools.ts";
import { TrajectoryRecorder } from "./trajectory.ts";
import {
  type Agent,
  type AgentPrepareContext,
  type AgentResult,
  type AgentRunContext,
  runLimits,
} from "./types.ts";

export class MissingKeyError extends Error {
  override name = "MissingKeyError";
}

export interface BuiltinAgentOptions {
  env?: NodeJS.ProcessEnv;
  /** Pins the retry jitter (tests). */
  random?: () => number;
  /** Overrides the model client (tests of the loop with another provider object). */
  model?: ChatModel;
  /** Progress lines (retries) for the operator. */
  log?: (line: string) => void;
}

export class BuiltinAgent implements Agent {
  readonly name: string;
  readonly harness = "builtin";
  readonly model: string;
  readonly digest: string;
  readonly revision: string;
  readonly pricing: Pricing | null;
  /** Its provider's adaptive limit in the session that prepared it (none before prepare(): tests). */
  private limit: AdaptiveLimit | undefined;
  /** Its configuration's limits on a trial (the trial budget takes the tighter of these and the task's). */
  readonly limits: AgentLimits;

  constructor(
    readonly config: ResolvedAgentConfig,
    private readonly options: BuiltinAgentOptions = {},
  ) {
    this.name = config.name;
    this.model = config.model;
    this.digest = config.digest;
    this.revision = config.harnessRevision;
    this.pricing = config.pricing;
    this.limits = config;
  }

  private apiKey(): string | null {
    const key = resolveApiKey(this.config, this.options.env);
    if (key === undefined) {
      throw new MissingKeyError(
        `agent "${this.name}" needs the environment variable ${this.config.apiKeyEnv} (its API key)`,
      );
    }
    return key;
  }

  /** The configuration's model client; the SDKs load on first use (commands that never call a model do not pay for them). */
  async chatModel(): Promise<ChatModel> {
    const key = this.apiKey();
    return this.options.model ?? (await import("./providers/index.ts")).createChatModel(this.config, key);
  }

  async prepare(context: AgentPrepareContext): Promise<SandboxRequirements> {
    this.apiKey();
    this.limit = context.limits.of(this.config);
    return {};
  }

  async run(outer: AgentRunContext): Promise<AgentResult> {
    const recorder = new TrajectoryRecorder(outer.trajectory);
    const ctx = { ...outer, trajectory: recorder };
    const c = this.config;
    const system = buildSystemPrompt(c.systemPrompt, ctx.sandbox.workdir, ctx.artefact);
    const limits = runLimits(ctx.budget);
    ctx.trajectory.append({
      type: "note",
      kind: "start",
      agent: this.name,
      harness: c.harnessRevision,
      provider: c.provider,
      model: c.model,
      baseUrl: c.baseUrl,
      condition: ctx.condition,
      artefactListed: ctx.artefact !== null,
      limits,
      system,
      instruction: ctx.instruction,
    });
    let model: ChatModel;
    try {
      model = await this.chatModel();
    } catch (err) {
      const error = trialError("config", (err as Error).message);
      ctx.trajectory.append({ type: "error", ...error });
      return { stopReason: "error", usage: { ...ZERO_USAGE }, artefactListed: ctx.artefact !== null, error };
    }
    const result = await runToolLoop({
      model,
      sandbox: ctx.sandbox,
      instruction: ctx.instruction,
      system,
      ...limits,
      maxOutputTokens: c.maxOutputTokens,
      temperature: c.temperature,
      tools: c.tools,
      retry: c.retry,
      limit: this.limit,
      ledger: ctx.ledger ?? new CallLedger(c.pricing),
      signal: ctx.signal,
      trajectory: ctx.trajectory,
      random: this.options.random,
      log: this.options.log,
    });
    const finished = result.stopReason !== "error" && result.stopReason !== "timeout";
    const followUp =
      ctx.followUp && finished
        ? await ctx.followUp({
            model,
            system,
            messages: result.messages,
            tools: TOOL_SPECS,
            maxOutputTokens: c.maxOutputTokens,
            temperature: c.temperature,
            pricing: c.pricing,
            signal: ctx.signal,
          })
        : undefined;
    return {
      stopReason: result.stopReason,
      usage: result.usage,
      reportedUsage: result.reportedUsage,
      artefactListed: ctx.artefact !== null,
      artefactOpened: openedFrom(recorder.events, placedArtefact(ctx)),
      ...(result.error ? { error: result.error } : {}),
      ...(followUp ? { followUp } : {}),
    };
  }
}
