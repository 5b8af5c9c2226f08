// A request body as the relay reads it: whole, up to a cap (declared or as it arrives), never more.
import type { IncomingMessage } from "node:http";

/** The body, or null when it is over `maxBytes` (declared or as it arrives). */
export async function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer | null> {
  if (Number(req.headers["content-length"] ?? 0) > maxBytes) return null;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) return null;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}
