// A streaming exec session over Docker's hijacked attach connection: the multiplexed stdout/stderr
// frames (8-byte header: stream type, 3 zero bytes, big-endian length) split as they arrive, stdout
// with backpressure (a paused reader stops reading the socket), stderr into a capped sink.
import { type Duplex, Transform, type TransformCallback } from "node:stream";
import { CappedSink } from "../capture.ts";
import { type ExecStream, SandboxUnavailableError } from "../types.ts";

const HEADER = 8;
const STDERR = 2;

/** Docker's multiplexed attach stream -> the stdout bytes; stderr bytes go to `stderr`. */
export class AttachDemux extends Transform {
  private header = Buffer.alloc(0);
  private left = 0;
  private type = 0;

  constructor(private readonly stderr: CappedSink) {
    super();
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    let at = 0;
    while (at < chunk.length) {
      if (this.left === 0) {
        const need = HEADER - this.header.length;
        this.header = Buffer.concat([this.header, chunk.subarray(at, at + need)]);
        at += Math.min(need, chunk.length - at);
        if (this.header.length < HEADER) break;
        this.type = this.header[0] ?? 0;
        this.left = this.header.readUInt32BE(4);
        this.header = Buffer.alloc(0);
        continue;
      }
      const part = chunk.subarray(at, at + this.left);
      at += part.length;
      this.left -= part.length;
      if (this.type === STDERR) this.stderr.write(part);
      else this.push(part);
    }
    done();
  }
}

/** Wraps a hijacked exec connection; `exitCode` asks the daemon once the connection ends. */
export function attachSession(
  socket: Duplex,
  exitCode: () => Promise<number | null>,
  maxStderrBytes: number,
): ExecStream {
  const stderr = new CappedSink(maxStderrBytes);
  const stdout = new AttachDemux(stderr);
  socket.pipe(stdout);
  let closed = false;
  const ended = new Promise<void>((resolve, reject) => {
    socket.once("close", () => resolve());
    socket.once("end", () => resolve());
    socket.once("error", (err) =>
      closed ? resolve() : reject(new SandboxUnavailableError(`Docker exec stream failed: ${err.message}`)),
    );
  });
  const exit = ended.then(exitCode);
  exit.catch(() => {}); // a session nobody waits on must not become an unhandled rejection
  return {
    stdin: socket,
    stdout,
    stderr: () => stderr.text(),
    exit,
    close() {
      if (closed) return;
      closed = true;
      socket.destroy();
      stdout.end();
    },
  };
}
