// What a trial's model calls are charged, call by call, whoever the client is (the relay for an
// installed harness, kgate itself in the built-in loop): each call holds a reservation while it runs
// (its input bound and granted output cap) and is settled at the usage the provider reported, at its
// reservation when that never reached kgate, or at nothing; a ledger closed with calls still open
// charges each at its reservation. A call's charge never depends on its client staying connected.
import type { Usage } from "../record/index.ts";
import type { Pricing } from "./config.ts";
import type { ModelReply, ModelRequest } from "./providers/types.ts";
import { type CallUsage, UsageMeter } from "./usage.ts";

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
  inputBound: number;
  held: number;
}

/**
 * How a model call ends for its charge: the usage the provider reported for it (its reply read to
 * the end), `reservation` (the provider may have billed it but its usage never reached kgate: a
 * client that hung up before the last event, a call aborted by the trial's timeout or Ctrl-C, an
 * upstream cut off mid-reply or after the request was sent), or `nothing` (the provider answered with
 * an error status, or the request never left the host).
 */
export type Settlement = CallUsage | "reservation" | "nothing";

export class CallLedger {
  /** What the calls were charged: the token budget and the record count this. */
  private readonly charged: UsageMeter;
  /** The usage the provider reported, over the calls where it reached kgate. */
  private readonly reported: UsageMeter;
  /** Reservations not settled yet (close() charges each at its reservation). */
  private readonly open = new Set<Reservation>();
  /** Tokens held by the open reservations, and the output tokens among them. */
  reservedTokens = 0;
  reservedOutput = 0;

  constructor(pricing: Pricing | null) {
    this.charged = new UsageMeter(pricing);
    this.reported = new UsageMeter(pricing);
  }

  /** Holds a call's input bound and output cap until the call is settled. */
  reserve(inputBound: number, outputTokens: number): Reservation {
    const grant = { outputTokens, inputBound, held: inputBound + outputTokens };
    this.open.add(grant);
    this.reservedTokens += grant.held;
    this.reservedOutput += outputTokens;
    return grant;
  }

  /** Releases a call's reservation and charges the call as it ended; a call settled already is left as it was. */
  settle(grant: Reservation, how: Settlement): void {
    if (!this.open.delete(grant)) return;
    this.reservedTokens -= grant.held;
    this.reservedOutput -= grant.outputTokens;
    if (how === "nothing") return;
    if (how === "reservation") this.charged.addReservation(grant.inputBound, grant.outputTokens);
    else {
      this.charged.add(how);
      this.reported.add(how);
    }
  }

  /** Calls under way (reserved, not settled). */
  get openCalls(): number {
    return this.open.size;
  }

  /** Tokens charged so far. */
  get total(): number {
    return this.charged.total;
  }

  /** Charges every call still open at its reservation: its usage can no longer reach the record. */
  close(): void {
    for (const grant of [...this.open]) this.settle(grant, "reservation");
  }

  /** What the calls were charged (see Settlement). */
  usage(): Usage {
    return this.charged.snapshot();
  }

  /** The usage the provider reported, summed over the calls whose usage reached kgate. */
  reportedUsage(): Usage {
    return this.reported.snapshot();
  }
}

/** Connection failures by which nothing reached the provider (no connection was ever opened). */
const NEVER_CONNECTED = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/** The error codes along an error's cause chain (the SDKs wrap fetch's error, which wraps the socket's). */
export function causeCodes(err: unknown): string[] {
  const codes: string[] = [];
  for (let e = err, depth = 0; e && typeof e === "object" && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") codes.push(code);
    e = (e as { cause?: unknown }).cause;
  }
  return codes;
}

/** A failed connection that never opened: the request never reached the provider. */
export function neverConnected(err: unknown): boolean {
  return causeCodes(err).some((code) => NEVER_CONNECTED.has(code));
}

/**
 * How a model call kgate made itself through a provider's SDK is charged when it failed: an answer
 * with an error status billed nothing, and so did a connection that never opened; anything else (the
 * trial's timeout or Ctrl-C aborting it, a reset, the SDK's own timeout) may have been billed.
 */
export function failedCallSettlement(err: unknown): Settlement {
  const status = (err as { status?: unknown } | null)?.status;
  if (typeof status === "number") return "nothing";
  return neverConnected(err) ? "nothing" : "reservation";
}

/** The input bound of a request kgate sends: the bytes of its system prompt, conversation and tools. */
export function requestInputBound(request: ModelRequest): number {
  const { system, messages, tools } = request;
  return inputTokenBound(Buffer.byteLength(JSON.stringify({ system, messages, tools })));
}

/**
 * One model call through `complete`, charged in `ledger`: reserved before it is sent, settled at the
 * usage its reply reported, or (failed) as failedCallSettlement says.
 */
export async function chargedCall(
  ledger: CallLedger,
  request: ModelRequest,
  complete: (request: ModelRequest) => Promise<ModelReply>,
): Promise<ModelReply> {
  const grant = ledger.reserve(requestInputBound(request), request.maxOutputTokens);
  try {
    const reply = await complete(request);
    ledger.settle(grant, reply.usage);
    return reply;
  } catch (err) {
    ledger.settle(grant, failedCallSettlement(err));
    throw err;
  }
}
