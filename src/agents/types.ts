// The interface every agent implements (oracle, noop, the built-in tool loop, installed CLI harnesses).
import {
  type Condition,
  type RetrospectiveOutcome,
  type SandboxRequirements,
  type StopReason,
  type TrajectorySink,
  type TrialBudget,
  type TrialError,
  trialError,
  type Usage,
} from "../record/index.ts";
import type { Sandbox, SandboxProvider } from "../sandbox/index.ts";
import type { LoadedTask } from "../task/index.ts";
import type { AdaptiveLimits } from "./adaptive-limit.ts";
import type { AgentLimits, Pricing } from "./config.ts";
import type { CallLedger } from "./ledger.ts";
import type { ChatMessage, ChatModel, ToolSpec } from "./providers/types.ts";

/** The built-in loop's finished conversation, handed on for follow-up turns (monitoring questions). */
export interface FinishedConversation {
  model: ChatModel;
  system: string | null;
  messages: ChatMessage[];
  /** The tools the loop offered (kept so the history stays valid); none is run in follow-ups. */
  tools: ToolSpec[];
  maxOutputTokens: number;
  temperature?: number;
  pricing: Pricing | null;
  signal: AbortSignal;
}

/** One declared output as the agent left it, read back for a follow-up (capped; null when unreadable). */
export interface WrittenOutput {
  path: string;
  text: string | null;
  /** The file was longer than the cap: `text` is its head. */
  truncated: boolean;
}

/**
 * An installed harness's finished run, handed on for a fresh follow-up conversation (monitoring
 * probes) with the configuration's own model client, host-side, without tools.
 */
export interface FinishedHarnessRun {
  kind: "harness";
  model: ChatModel;
  instruction: string;
  /** The CLI's reported result (e.g. Claude Code's `result`), capped; null when it reported none. */
  finalMessage: string | null;
  outputs: WrittenOutput[];
  maxOutputTokens: number;
  temperature?: number;
  pricing: Pricing | null;
  signal: AbortSignal;
}

/** The reason the runner aborts an agent's signal with when the task's wall-clock budget runs out. */
export class AgentTimeoutError extends Error {
  override name = "AgentTimeoutError";
}

/** How an aborted agent ends: the task's timeout (the agent's failure) or a cancelled run (not counted). */
export function abortOutcome(
  signal: AbortSignal,
): { stopReason: "timeout" } | { stopReason: "cancelled"; error: TrialError } {
  if (signal.reason instanceof AgentTimeoutError) return { stopReason: "timeout" };
  const message = signal.reason instanceof Error ? signal.reason.message : "the run was cancelled";
  return { stopReason: "cancelled", error: trialError("cancelled", message) };
}

/** A trial budget as the loop, the relay and a trajectory's start note name its limits. */
export function runLimits(budget: TrialBudget): {
  maxTurns: number;
  tokenBudget: number;
  timeoutSec: number;
  outputTokenBudget?: number;
} {
  return {
    maxTurns: budget.turns,
    tokenBudget: budget.tokens,
    timeoutSec: budget.wallClockSec,
    ...(budget.outputTokens === null ? {} : { outputTokenBudget: budget.outputTokens }),
  };
}

export interface AgentRunContext {
  /** The instruction, byte-identical in every condition. */
  instruction: string;
  sandbox: Sandbox;
  /** The trial's budget (its wall clock, tokens and turns), computed once at the trial's start. */
  budget: TrialBudget;
  condition: Condition;
  /** Under +A / variant: where the artefact is and its one-line description; null under -A. */
  artefact: { path: string; description: string } | null;
  /** The task, read-only (the oracle needs its solution folder). */
  task: LoadedTask;
  /** Aborted on the agent timeout or when the run is cancelled. */
  signal: AbortSignal;
  trajectory: TrajectorySink;
  /**
   * Where the agent charges its model calls (the agent phase's, built with the agent's `pricing`, so
   * that an agent it abandons is still charged for every call, open ones at their reservation); an
   * agent run without one keeps its own.
   */
  ledger?: CallLedger;
  /** When set, the built-in loop (or an installed harness, its finished run) is handed on for the probes. */
  followUp?: (finished: FinishedConversation | FinishedHarnessRun) => Promise<RetrospectiveOutcome>;
}

export interface AgentResult {
  stopReason: StopReason;
  /** What the trial's model calls were charged (the token budget and the cost ceiling count this). */
  usage: Usage;
  /**
   * The usage the provider reported, over the calls where it reached kgate; absent for an agent that
   * calls no model.
   */
  reportedUsage?: Usage;
  /** Set when the agent could not complete; infra errors are retried and never counted. */
  error?: TrialError;
  /** Did the harness list the artefact as an available reference (or install it as a skill)? */
  artefactListed?: boolean;
  /** Under +A / variant: whether the agent read the artefact, when the harness can tell. */
  artefactOpened?: boolean | null;
  /** What the follow-up turns gave, when asked. */
  followUp?: RetrospectiveOutcome;
}

/** What an agent is prepared with, once per run. */
export interface AgentPrepareContext {
  /** Where the run's trials are created: a derived image (an installed harness's) is built or found there. */
  provider: SandboxProvider;
  /**
   * The session's adaptive concurrency of model calls, one limit per provider (adaptive-limit.ts):
   * every agent the session prepares shares it, and a later session starts from its own.
   */
  limits: AdaptiveLimits;
}

export interface Agent {
  /** Configuration name, e.g. `oracle`, `frontier`. */
  readonly name: string;
  /** e.g. `oracle`, `noop`, `builtin`, `claude-code`. */
  readonly harness: string;
  readonly model: string | null;
  /** sha256 of the normalised configuration: goes into every record. */
  readonly digest: string;
  /** The exact harness that ran (`builtin@1`, `claude-code@2.1.332`, `oracle@1`), for provenance. */
  readonly revision?: string;
  /** The prices its model calls are charged at (null: none declared; absent: it calls no model). */
  readonly pricing?: Pricing | null;
  /** The limits its configuration sets on a trial (absent: none of its own, the task's alone). */
  readonly limits?: AgentLimits;
  /** Prepared once per run (check the key; build a derived image, start a relay). */
  prepare?(context: AgentPrepareContext): Promise<SandboxRequirements>;
  run(context: AgentRunContext): Promise<AgentResult>;
  /** Released once per run. */
  dispose?(): Promise<void>;
}
