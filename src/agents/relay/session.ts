// One trial's view of the relay: its secret token, what its calls are charged (each model call's
// reservation settled at the usage the provider reported, or kept whole when that never reached the
// relay), limits, the failures of its calls (the relay's own upstream failures apart from the
// provider's refusals of the request's content), its counted notes, and the trajectory events the
// relay derives from the traffic (narration.ts).
import { randomBytes } from "node:crypto";
import type { TrajectorySink, TrialError, Usage } from "../../record/index.ts";
import { type Pricing, RELAY_DEFAULTS } from "../config.ts";
import { CallLedger, type Reservation, type Settlement } from "../ledger.ts";
import { capText } from "../tools.ts";
import { CountedNotes } from "./counted-notes.ts";
import { Narrator } from "./narration.ts";
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
  /** Model calls the provider may refuse (4xx) before the relay forwards no more of this trial. */
  maxRejectedCalls?: number;
  /** The clock of the counted notes' minutes (injectable for tests). */
  now?: () => number;
  /** Where the calls are charged (the agent phase's, so that an abandoned agent is still charged); its own if none. */
  ledger?: CallLedger;
}

export const DEFAULT_MAX_IN_FLIGHT = RELAY_DEFAULTS.maxInFlight;
export const DEFAULT_MAX_REJECTED_CALLS = RELAY_DEFAULTS.maxRejectedCalls;
const DEFAULT_MAX_OUTPUT_TOKENS = 8192;
const TEXT_CAP = 64 * 1024;

export class RelaySession {
  /** What the harness sends as its API key; worthless outside this relay. */
  readonly token = `kgate-relay-${randomBytes(24).toString("hex")}`;
  readonly abort = new AbortController();
  turns = 0;
  /** Requests being handled now, and the tokens reserved for the model calls among them. */
  inFlight = 0;
  /** Calls forwarded that are not model turns (count_tokens, models), for the record. */
  otherCalls = 0;
  /** Set when the relay refused a call because a limit was reached. */
  limitHit: "token-budget" | "max-turns" | null = null;
  /**
   * The relay's own upstream failure on the latest model call, after retries (5xx, 408, 429,
   * unreachable, stalled, kgate's key refused, a reply that is not one), answered to a client that
   * was waiting for it: infrastructure. Cleared by any later answer to the session (a reply, the
   * provider's refusal, a refusal of the relay's own): a trial is infrastructure's only when the
   * provider failed the last call the harness heard back on.
   */
  infraFailure: TrialError | null = null;
  /**
   * The latest refusal by the provider of a request's content (a 4xx other than 401/403/408/429,
   * among them a full context window): never infrastructure once the agent has acted.
   */
  rejection: TrialError | null = null;
  /** Model calls the provider refused (rejection's count), against maxRejectedCalls. */
  rejectedCalls = 0;
  /** The relay's refusals and unnarrated calls, counted: one event per kind and minute. */
  readonly notes: CountedNotes;
  readonly narrator: Narrator;
  /** What the trial's model calls are charged, call by call (the token budget and the record count this). */
  private readonly ledger: CallLedger;
  closed = false;

  constructor(readonly options: RelaySessionOptions) {
    this.ledger = options.ledger ?? new CallLedger(options.pricing);
    this.notes = new CountedNotes(options.trajectory, options.now);
    this.narrator = new Narrator(options.trajectory);
  }

  /** True once the provider refused maxRejectedCalls of this trial's model calls. */
  get rejectedTooOften(): boolean {
    return this.rejectedCalls >= (this.options.maxRejectedCalls ?? DEFAULT_MAX_REJECTED_CALLS);
  }

  /** What the trial's calls were charged (see Settlement). */
  usage(): Usage {
    return this.ledger.usage();
  }

  /** The usage the provider reported, summed over the calls whose usage reached the relay. */
  reportedUsage(): Usage {
    return this.ledger.reportedUsage();
  }

  /** Why the next model call must be refused, or null. */
  refusal(offersTools: boolean): "token-budget" | "max-turns" | null {
    if (this.ledger.total >= this.options.tokenBudget) return "token-budget";
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
    const left = this.options.tokenBudget - this.ledger.total - this.ledger.reservedTokens - inputBound;
    const wanted = asked !== null && asked > 0 ? Math.floor(asked) : cap;
    const outputTokens = Math.min(wanted, cap, left, this.outputLeft());
    if (outputTokens <= 0) return null;
    return this.ledger.reserve(inputBound, outputTokens);
  }

  /**
   * Releases a call's reservation and charges the call as it ended (see Settlement); a call settled
   * already (by the session's close) is left as it was.
   */
  settle(grant: Reservation, how: Settlement): void {
    this.ledger.settle(grant, how);
  }

  /** Output tokens of outputTokenBudget neither spent nor reserved (Infinity without one). */
  private outputLeft(): number {
    const budget = this.options.outputTokenBudget ?? Number.POSITIVE_INFINITY;
    return budget - this.ledger.usage().outputTokens - this.ledger.reservedOutput;
  }

  /** Records what is new in an agent-turn request (narration.ts). */
  recordRequest(system: string, userTexts: string[], results: ToolResultSeen[]): void {
    this.narrator.request(this.turns, system, userTexts, results);
  }

  /** Narrates a reply (whole or as far as it came); its charge is settle()'s. */
  recordReply(
    reply: ReplySeen,
    meta: { model: string | null; durationMs: number; offersTools: boolean },
  ): void {
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

  /**
   * The relay's own upstream call failed (infrastructure, see infraFailure) while its client was
   * `waiting` for the answer; a call its client had hung up on is written down only.
   */
  recordUpstreamFailure(error: TrialError, status: number | null, waiting: boolean): void {
    if (waiting) this.infraFailure = error;
    this.options.trajectory.append({ type: "error", ...error, status, source: "relay" });
  }

  /** The provider refused a request for its content (see rejection); counted against maxRejectedCalls. */
  recordRejection(error: TrialError, status: number): void {
    this.rejection = error;
    this.rejectedCalls += 1;
    this.infraFailure = null;
    this.options.trajectory.append({ type: "error", ...error, status, source: "relay" });
  }

  /**
   * Resolves once every call under way has settled (a reply the harness hung up on, still being read
   * for its usage), or after `ms`: whatever is still open then is charged at its reservation by close().
   */
  async settled(ms: number): Promise<void> {
    const until = Date.now() + ms;
    while (this.ledger.openCalls > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 25));
  }

  /** Writes the counted notes still open (before the trial's last events). */
  flush(): void {
    this.notes.flush();
  }

  /**
   * Ends the session: the counted notes written, every call still open charged at its reservation
   * (its usage can no longer reach the trial's record) and its upstream call cut.
   */
  close(): void {
    if (!this.closed) this.flush();
    this.closed = true;
    this.ledger.close();
    this.abort.abort(new Error("relay session closed"));
  }
}
