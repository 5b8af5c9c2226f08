// One trial's view of the relay: its secret token, usage, limits, infra failures, and the trajectory
// events the relay derives from the traffic (model turns, tool calls, tool results).
import { randomBytes } from "node:crypto";
import { FAILURE_KINDS, type TrajectorySink, type TrialError, type Usage } from "../../model/index.ts";
import { type Pricing, RELAY_DEFAULTS } from "../config.ts";
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
  /** The configured model: every forwarded call is sent to it, whatever the harness asked for. */
  model?: string | null;
  /** Output tokens one call may ask for (the configuration's maxOutputTokens). */
  maxOutputTokens?: number;
  /** Output tokens the whole trial may spend (the configuration's outputTokenBudget); none if unset. */
  outputTokenBudget?: number;
  /** Requests of this trial the relay holds at once; more are refused with 429. */
  maxInFlight?: number;
}

export const DEFAULT_MAX_IN_FLIGHT = RELAY_DEFAULTS.maxInFlight;
/**
 * Request-body bytes per input token assumed by the reservation: the byte-level BPE tokenizers of
 * Claude and GPT spend 3.5 to 4 bytes of English or code per token, and JSON adds quotes, keys and
 * escapes; 2 leaves room for denser text and for the few hundred tokens a provider adds around tools.
 */
export const BODY_BYTES_PER_INPUT_TOKEN = 2;

/** The input tokens reserved for a request body of `bytes` bytes (see BODY_BYTES_PER_INPUT_TOKEN). */
export function inputTokenBound(bytes: number): number {
  return Math.ceil(bytes / BODY_BYTES_PER_INPUT_TOKEN);
}

/** One call's hold on the budget: its output cap, and what it reserved (input bound + output cap). */
export interface Reservation {
  outputTokens: number;
  held: number;
}
const DEFAULT_MAX_OUTPUT_TOKENS = 8192;
/** New user texts recorded per call, at most, in one bounded event. */
const CONTEXT_CAP = 64 * 1024;
/** New tool results recorded per call, at most; the rest are counted in one note. */
const RESULTS_PER_CALL = 64;

const TEXT_CAP = 64 * 1024;
const TOOL_OUTPUT_CAP = 16 * 1024;
const SYSTEM_CAP = 64 * 1024;

export class RelaySession {
  /** What the harness sends as its API key; worthless outside this relay. */
  readonly token = `kgate-relay-${randomBytes(24).toString("hex")}`;
  readonly abort = new AbortController();
  turns = 0;
  /** Requests being handled now, and the tokens reserved for the model calls among them. */
  inFlight = 0;
  private reserved = 0;
  /** The output tokens among `reserved` (what outputTokenBudget is checked against). */
  private reservedOutput = 0;
  /** Calls forwarded that are not model turns (count_tokens, models), for the record. */
  otherCalls = 0;
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
    if (this.outputLeft() <= 0) return "token-budget";
    if (offersTools && this.turns >= this.options.maxTurns) return "max-turns";
    return null;
  }

  /**
   * Reserves a model call's tokens before it is forwarded, so that concurrent calls can never
   * together spend past the budget: its input tokens at their bound (`inputBound`), and as output
   * what it asked for, capped at the configuration's maxOutputTokens, at the budget not yet spent
   * or reserved, and at the output-token budget not yet spent or reserved. Null (refuse): not even
   * one output token is left after the input's bound.
   * After the reply, the usage it reports is counted and the reservation released.
   */
  reserve(asked: number | null, inputBound: number): Reservation | null {
    const cap = this.options.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS;
    const left = this.options.tokenBudget - this.meter.total - this.reserved - inputBound;
    const wanted = asked !== null && asked > 0 ? Math.floor(asked) : cap;
    const outputTokens = Math.min(wanted, cap, left, this.outputLeft());
    if (outputTokens <= 0) return null;
    const held = inputBound + outputTokens;
    this.reserved += held;
    this.reservedOutput += outputTokens;
    return { outputTokens, held };
  }

  release(reservation: Reservation): void {
    this.reserved -= reservation.held;
    this.reservedOutput -= reservation.outputTokens;
  }

  /** Output tokens of outputTokenBudget neither spent nor reserved (Infinity without one). */
  private outputLeft(): number {
    const budget = this.options.outputTokenBudget ?? Number.POSITIVE_INFINITY;
    return budget - this.meter.snapshot().outputTokens - this.reservedOutput;
  }

  /** Records what is new in an agent-turn request: system prompt (once), user-turn text, tool results. */
  recordRequest(system: string, userTexts: string[], results: ToolResultSeen[]): void {
    const t = this.options.trajectory;
    if (!this.systemRecorded && system) {
      this.systemRecorded = true;
      t.append({ type: "note", kind: "harness-system-prompt", system: capText(system, SYSTEM_CAP).text });
    }
    // One bounded event per call, however many texts the request carries.
    const fresh: string[] = [];
    let bytes = 0;
    let omitted = 0;
    for (const text of userTexts) {
      if (this.seenTexts.has(text)) continue;
      this.seenTexts.add(text);
      if (bytes < CONTEXT_CAP) {
        fresh.push(text);
        bytes += Buffer.byteLength(text);
      } else omitted += 1;
    }
    if (fresh.length > 0) {
      const joined = capText(fresh.join("\n\n"), CONTEXT_CAP);
      t.append({
        type: "note",
        kind: "harness-context",
        turn: this.turns,
        text: joined.text,
        texts: fresh.length + omitted,
        truncated: joined.truncated || omitted > 0,
      });
    }
    let resultsOmitted = 0;
    let resultsShown = 0;
    for (const r of results) {
      if (this.seenResults.has(r.id)) continue;
      this.seenResults.add(r.id);
      if (resultsShown >= RESULTS_PER_CALL) {
        resultsOmitted += 1;
        continue;
      }
      resultsShown += 1;
      t.append({
        type: "tool-result",
        turn: this.turns,
        id: r.id,
        isError: r.isError,
        output: capText(r.output, TOOL_OUTPUT_CAP).text,
        truncated: Buffer.byteLength(r.output) > TOOL_OUTPUT_CAP,
      });
    }
    if (resultsOmitted > 0) {
      t.append({ type: "note", kind: "tool-results-omitted", turn: this.turns, count: resultsOmitted });
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
