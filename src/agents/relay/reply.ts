// The provider's answer to one forwarded request: passed to the harness as it comes, and read to its
// end even after the harness hung up (bounded by the upstream's silence timeout, a size cap and the
// session's end), so that a model call's usage reaches the relay whatever its client does. Says what
// the call is charged: the usage the provider reported, or its reservation when that never came.
import type { ServerResponse } from "node:http";
import { trialError } from "../../record/index.ts";
import { classifyStatus, errorMessage } from "../errors.ts";
import type { Settlement } from "../ledger.ts";
import type { RelaySession } from "./session.ts";
import { StreamAccumulator } from "./stream.ts";
import type { UpstreamAnswer } from "./upstream.ts";
import { type ReplySeen, replyOfJson, type WireApi } from "./wire.ts";

/** Most bytes of one reply the relay reads (a reply of 128K output tokens is a few MiB of SSE). */
export const MAX_REPLY_BYTES = 64 * 1024 * 1024;

export interface ForwardedCall {
  /** The wire format of a model call; null for the other endpoints (count_tokens, models). */
  api: WireApi | null;
  started: number;
  offersTools: boolean;
  model: unknown;
}

/** The harness is still connected and can be written to. */
export function clientOpen(res: ServerResponse): boolean {
  return !res.destroyed && !res.writableEnded;
}

class ReplyTooLargeError extends Error {}

/**
 * Copies the reply to the harness while it listens, reads it to the end, settles the call, and frees
 * its slot of the provider's limit (answered at the end; abandoned when cut off).
 */
export async function pipeReply(
  upstream: UpstreamAnswer,
  res: ServerResponse,
  session: RelaySession,
  call: ForwardedCall,
  maxBytes = MAX_REPLY_BYTES,
): Promise<Settlement> {
  const { response, stall } = upstream;
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (!["content-length", "content-encoding", "transfer-encoding", "connection"].includes(name))
      headers[name] = value;
  });
  if (clientOpen(res)) res.writeHead(response.status, headers);
  const sse = (response.headers.get("content-type") ?? "").includes("text/event-stream");
  const stream = call.api && sse ? new StreamAccumulator(call.api) : null;
  const chunks: Buffer[] = [];
  const seen = {
    model: typeof call.model === "string" ? call.model : null,
    offersTools: call.offersTools,
  };
  try {
    let size = 0;
    for await (const chunk of response.body ?? []) {
      stall.touch();
      const bytes = chunk as Uint8Array;
      size += bytes.byteLength;
      if (size > maxBytes) throw new ReplyTooLargeError(`a reply over ${maxBytes} bytes`);
      if (clientOpen(res)) res.write(bytes);
      if (stream) stream.push(bytes);
      else if (call.api) chunks.push(Buffer.from(bytes));
    }
  } catch (err) {
    // cut off mid-reply (the provider stalled, the session closed, a reply past the cap): the
    // provider bills what it generated, which the relay never learns: the call keeps its reservation
    stall.clear();
    upstream.release({ overloaded: false, abandoned: true });
    if (stream) {
      stream.end();
      if (call.api) session.recordReply(stream.result(), { ...seen, durationMs: Date.now() - call.started });
    }
    if (stall.fired) {
      const failure = trialError("provider-outage", errorMessage(stall.signal.reason));
      session.recordUpstreamFailure(failure, null, clientOpen(res));
    }
    res.destroy();
    if (err instanceof ReplyTooLargeError)
      session.options.trajectory.append({ type: "note", kind: "relay-cut", reason: err.message });
    return call.api ? "reservation" : "nothing";
  }
  stall.clear();
  upstream.release({ overloaded: false });
  const waiting = clientOpen(res);
  if (waiting) res.end();
  if (!call.api) return "nothing";
  stream?.end();
  return settleReply(session, response.status, stream, Buffer.concat(chunks).toString("utf8"), {
    ...seen,
    durationMs: Date.now() - call.started,
    waiting,
    api: call.api,
  });
}

/** A reply read to its end: an error status (billed nothing) or a reply and what it reported. */
function settleReply(
  session: RelaySession,
  status: number,
  stream: StreamAccumulator | null,
  text: string,
  meta: { model: string | null; durationMs: number; offersTools: boolean; waiting: boolean; api: WireApi },
): Settlement {
  if (status >= 400) {
    const failure = trialError(classifyStatus(status, text).kind, text.slice(0, 500));
    // kgate's key refused is the relay's own failure; any other 4xx judged the request's content
    if (failure.kind === "auth" || failure.kind === "provider-outage") {
      session.recordUpstreamFailure(failure, status, meta.waiting);
    } else session.recordRejection(failure, status);
    return "nothing";
  }
  let reply: ReplySeen;
  if (stream) reply = stream.result();
  else {
    try {
      reply = replyOfJson(meta.api, JSON.parse(text) as Record<string, unknown>);
    } catch {
      const failure = trialError("provider-rejected", "the provider's reply is not JSON");
      session.recordUpstreamFailure(failure, status, meta.waiting);
      return "reservation";
    }
  }
  session.recordReply(reply, meta);
  // a reply without the provider's count of the whole call is charged as if it had spent it all
  return reply.reported ? reply.usage : "reservation";
}
