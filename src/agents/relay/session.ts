// One trial's view of the relay: its secret token, usage, limits, infra failures, and the trajectory
// events the relay derives from the traffic (model turns, tool calls, tool results).
import { randomBytes } from "node:crypto";
import { FAILURE_KINDS, type TrajectorySink, type TrialError, type Usage } from "../../model/index.ts";
import type { Pricing } from "../config.ts";
import { capText } from "../tools.ts";
import { UsageMeter } from "../usage.ts";
import type { ReplySeen, ToolResultSeen } from "./wire.ts";

export interface RelaySessionOptions {
  /** Total tokens the trial may spend; further model calls are refused. */
  tokenBudget: number;
  /** Model calls that offer tools (agent turns); further ones are refused. */
  maxTurns: number;
  pricing: Pricing | null;
  trajectory: TrajectorySink;
}

const TEXT_CAP = 64 * 1024;
const TOOL_OUTPUT_CAP = 16 * 1024;
const SYSTEM_CAP = 64 * 1024;

export class RelaySession {
  /** What the harness sends as its API key; worthless outside this relay. */
  readonly token = `kgate-relay-${randomBytes(24).toString("hex")}`;
  readonly abort = new AbortController();
  turns = 0;
  /** Set when the relay refused a call because a limit was reached. */
  limitHit: "token-budget" | "max-turns" | null = null;
  /** The last unresolved provider failure after retries (cleared by a later success). */
  infraFailure: TrialError | null = null;
  /** The last agent-side provider refusal (e.g. a full context window). */
  agentFailure: TrialError | null = null;
  private readonly meter: UsageMeter;
  private readonly seenResults = new Set<string>();
  private readonly seenTexts = new Set<string>();
  private systemRecorded = false;
  closed = false;

  constructor(readonly options: RelaySessionOptions) {
    this.meter = new UsageMeter(options.pricing);
  }

  usage(): Usage {
    return this.meter.snapshot();
  }

  /** Why the next model call must be refused, or null. */
  refusal(offersTools: boolean): "token-budget" | "max-turns" | null {
    if (this.meter.total >= this.options.tokenBudget) return "token-budget";
    if (offersTools && this.turns >= this.options.maxTurns) return "max-turns";
    return null;
  }

  /** Records what is new in an agent-turn request: system prompt (once), user-turn text, tool results. */
  recordRequest(system: string, userTexts: string[], results: ToolResultSeen[]): void {
    const t = this.options.trajectory;
    if (!this.systemRecorded && system) {
      this.systemRecorded = true;
      t.append({ type: "note", kind: "harness-system-prompt", system: capText(system, SYSTEM_CAP).text });
    }
    for (const text of userTexts) {
      if (this.seenTexts.has(text)) continue;
      this.seenTexts.add(text);
      t.append({
        type: "note",
        kind: "harness-context",
        turn: this.turns,
        text: capText(text, TOOL_OUTPUT_CAP).text,
      });
    }
    for (const r of results) {
      if (this.seenResults.has(r.id)) continue;
      this.seenResults.add(r.id);
      t.append({
        type: "tool-result",
        turn: this.turns,
        id: r.id,
        isError: r.isError,
        output: capText(r.output, TOOL_OUTPUT_CAP).text,
        truncated: Buffer.byteLength(r.output) > TOOL_OUTPUT_CAP,
      });
    }
  }

  recordReply(
    reply: ReplySeen,
    meta: { model: string | null; durationMs: number; offersTools: boolean },
  ): void {
    this.meter.add(reply.usage);
    if (meta.offersTools) this.turns += 1;
    this.infraFailure = null;
    const t = this.options.trajectory;
    t.append({
      type: "model",
      turn: this.turns,
      durationMs: meta.durationMs,
      model: meta.model,
      stopReason: reply.stopReason,
      usage: reply.usage,
      text: capText(reply.text, TEXT_CAP).text,
      toolCalls: reply.toolCalls.map((c) => ({ id: c.id, name: c.name })),
    });
    for (const c of reply.toolCalls) {
      t.append({ type: "tool-call", turn: this.turns, id: c.id, name: c.name, input: c.input });
    }
  }

  recordFailure(error: TrialError, status: number | null): void {
    if (!FAILURE_KINDS[error.kind].counted) this.infraFailure = error;
    else this.agentFailure = error;
    this.options.trajectory.append({ type: "error", ...error, status, source: "relay" });
  }

  close(): void {
    this.closed = true;
    this.abort.abort(new Error("relay session closed"));
  }
}
