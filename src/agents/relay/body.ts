// A request body as the relay reads it: whole, up to a cap (past the cap, what is left is read and
// thrown away, bounded, so that the client gets the refusal instead of a reset connection); then
// checked as its route takes it: none, or a JSON object that references nothing outside itself.
import type { IncomingMessage } from "node:http";
import { egressProblem } from "./guard.ts";
import type { Route } from "./routes.ts";

/** The body, or null when it is over `maxBytes` (declared or as it arrives). */
export async function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer | null> {
  if (Number(req.headers["content-length"] ?? 0) > maxBytes) return discardRest(req, null);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) return discardRest(req, null);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** What of a refused body is read and thrown away at most, and for how long. */
const DISCARD_BYTES = 64 * 1024 * 1024;
const DISCARD_MS = 10_000;

/**
 * Reads and throws away what is left of a refused request body, within DISCARD_BYTES and DISCARD_MS,
 * so that a client still sending gets the refusal rather than a reset connection (closing a socket
 * with unread bytes resets it). Nothing is kept; a sender past either bound is simply cut off.
 */
function discardRest<T>(req: IncomingMessage, value: T): Promise<T> {
  return new Promise((resolve) => {
    let seen = 0;
    const done = () => {
      clearTimeout(timer);
      req.off("data", onData);
      resolve(value);
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > DISCARD_BYTES) done();
    };
    const timer = setTimeout(done, DISCARD_MS);
    if (req.readableEnded) return done();
    req.on("data", onData);
    req.once("end", done);
    req.once("error", done);
    req.once("close", done);
    req.resume();
  });
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);

/** The body as the route takes it (no body on GET), or the problem and the refusal's message. */
export function checkedBody(
  route: Route,
  url: URL,
  body: Buffer,
): { json: Record<string, unknown> | null } | { problem: string; message: string } {
  const refused = (problem: string, message = problem) => ({ problem, message });
  if (route.body === null) {
    return body.length === 0 ? { json: null } : refused(`a body on ${route.method} ${url.pathname}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(body.toString("utf8"));
  } catch {
    return refused("request body is not JSON");
  }
  if (!isObject(json)) return refused("request body is not a JSON object");
  const egress = egressProblem(route.body, json);
  if (egress) {
    return refused(
      egress,
      `${egress} refused: only fields that cannot make the provider fetch are forwarded`,
    );
  }
  return { json };
}
