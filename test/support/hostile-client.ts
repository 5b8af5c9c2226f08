// Test support: a harness as a hostile agent drives it, on raw HTTP to the relay's socket: it sends a
// model call with the trial's token and hangs up when it likes (after so many of a marker's copies
// arrived, or once the request is out), or reads the whole answer.
import { request } from "node:http";

export interface HostileCall {
  path: string;
  body: Record<string, unknown>;
  /** Hang up once the answer holds this many copies of `marker`; undefined: read it all. */
  hangUpAfter?: { copies: number; marker: string };
  /** Hang up as soon as this settles (a non-streamed call abandoned mid-flight). */
  hangUpWhen?: Promise<unknown>;
  /** Told the answer read so far, at each piece that arrives. */
  onText?: (text: string) => void;
}

/** The answer's status (0 when none came) and the bytes read before the end or the hang-up. */
export function hostileCall(
  socketPath: string,
  token: string,
  call: HostileCall,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve) => {
    const payload = JSON.stringify(call.body);
    let status = 0;
    let text = "";
    const done = () => resolve({ status, text });
    const req = request(
      {
        socketPath,
        method: "POST",
        path: call.path,
        headers: {
          "x-api-key": token,
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          "content-length": String(Buffer.byteLength(payload)),
        },
      },
      (res) => {
        status = res.statusCode ?? 0;
        res.setEncoding("utf8");
        res.on("data", (d: string) => {
          text += d;
          call.onText?.(text);
          const h = call.hangUpAfter;
          if (h && text.split(h.marker).length - 1 >= h.copies) {
            req.destroy();
            done();
          }
        });
        res.on("end", done);
        res.on("error", done);
        res.on("close", done);
      },
    );
    req.on("error", done);
    void call.hangUpWhen?.then(() => {
      req.destroy();
      done();
    });
    req.end(payload);
  });
}

/** Waits until `ready()` holds (polled every few ms); no deadline of its own (the test's applies). */
export async function until(ready: () => boolean): Promise<void> {
  while (!ready()) await new Promise((r) => setTimeout(r, 5));
}
