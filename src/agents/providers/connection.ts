// Connection failures named by endpoint: the SDKs say only "Connection error." and hide the cause
// (ECONNREFUSED, ENOTFOUND) two `cause` levels deep; kgate's messages say which URL and why.

/** The error's first line and the innermost cause's code (else its message: undici's "bad port"). */
export function describeConnectionError(err: unknown): string {
  const message = ((err as { message?: string } | null)?.message ?? String(err)).split("\n")[0] ?? "";
  let code: string | undefined;
  let innermost: string | undefined;
  for (
    let e = err as { cause?: unknown; code?: unknown; message?: unknown } | null, depth = 0;
    e && depth < 5;
    depth++
  ) {
    if (typeof e.code === "string") code = e.code;
    if (typeof e.message === "string") innermost = e.message.split("\n")[0];
    e = e.cause as typeof e;
  }
  const detail = code ?? (innermost !== message ? innermost : undefined);
  return detail && !message.includes(detail) ? `${message} (${detail})` : message;
}

/** The SDKs' connection error classes (both name them alike). */
const CONNECTION_ERRORS = new Set(["APIConnectionError", "APIConnectionTimeoutError"]);

/**
 * Rethrows a connection failure with the endpoint in its message (same error object, so its class
 * and classification stay as they were); any other error unchanged.
 */
export function withEndpoint(err: unknown, url: string): never {
  const e = err as Error | null;
  if (e instanceof Error && CONNECTION_ERRORS.has(e.constructor.name) && !e.message.includes(url)) {
    e.message = `${describeConnectionError(e)} calling ${url}`;
  }
  throw err;
}
