// The interface every agent implements (oracle, noop, the built-in tool loop, installed CLI harnesses).
import type { Sandbox } from "../sandbox/types.ts";
import type { Condition, Limits, LoadedTask } from "../task/index.ts";
import type { RetrospectiveOutcome, StopReason, TrialError, Usage } from "../trial/record.ts";
import type { Pricing } from "./config.ts";
import type { ChatMessage, ChatModel, ToolSpec } from "./providers/types.ts";

/** The built-in loop's finished conversation, handed on for follow-up turns (monitoring probes). */
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

/** One event of a trajectory: a model turn, a tool call and its (capped) output, a note. */
export interface TrajectoryEvent {
  at: string;
  type: "model" | "tool-call" | "tool-result" | "note" | "error";
  [key: string]: unknown;
}

export interface TrajectorySink {
  append(event: Omit<TrajectoryEvent, "at">): void;
}

export interface AgentRunContext {
  /** The instruction, byte-identical in every condition. */
  instruction: string;
  sandbox: Sandbox;
  limits: Limits;
  condition: Condition;
  /** Under +A / variant: where the artefact is and its one-line description; null under -A. */
  artefact: { path: string; description: string } | null;
  /** The task, read-only (the oracle needs its solution folder). */
  task: LoadedTask;
  /** Aborted on the agent timeout or when the run is cancelled. */
  signal: AbortSignal;
  trajectory: TrajectorySink;
  /** When set, the built-in loop hands its finished conversation on (monitoring probes). */
  followUp?: (conversation: FinishedConversation) => Promise<RetrospectiveOutcome>;
}

export interface AgentResult {
  stopReason: StopReason;
  usage: Usage;
  /** Set when the agent could not complete; infra errors are retried and never counted. */
  error?: TrialError;
  /** Did the harness list the artefact as an available reference (or install it as a skill)? */
  artefactListed?: boolean;
  /** Under +A / variant: whether the agent read the artefact, when the harness can tell. */
  artefactOpened?: boolean | null;
  /** What the follow-up turns gave, when asked. */
  followUp?: RetrospectiveOutcome;
}

/** What the container needs for this agent beyond the default sandbox image. */
export interface SandboxRequirements {
  /** A derived image (e.g. with a CLI harness installed). */
  image?: string;
  /** Host unix sockets or folders mounted read-only (e.g. a model relay socket). */
  binds?: string[];
  env?: Record<string, string>;
  /**
   * Extra writable folders (anonymous volumes seeded from the image, removed with the container);
   * the root filesystem is read-only, and /home/agent (with the work directory) and /tmp are writable.
   */
  writable?: string[];
}

export interface Agent {
  /** Configuration name, e.g. `oracle`, `frontier`. */
  readonly name: string;
  /** e.g. `oracle`, `noop`, `builtin`, `claude-code`. */
  readonly harness: string;
  readonly model: string | null;
  /** sha256 of the normalised configuration: goes into every record. */
  readonly digest: string;
  /** Prepared once per run (build a derived image, start a relay). */
  prepare?(): Promise<SandboxRequirements>;
  run(context: AgentRunContext): Promise<AgentResult>;
  /** Released once per run. */
  dispose?(): Promise<void>;
}
