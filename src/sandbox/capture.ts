// A writable sink that keeps at most N bytes of a stream and remembers whether it dropped any.
import { Writable } from "node:stream";

export class CappedSink extends Writable {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  /** Bytes seen in total, kept or not. */
  total = 0;

  constructor(private readonly cap: number) {
    super();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.total += chunk.length;
    const room = this.cap - this.kept;
    if (room > 0) {
      const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
      this.chunks.push(part);
      this.kept += part.length;
    }
    done();
  }

  get truncated(): boolean {
    return this.total > this.kept;
  }

  bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }

  text(): string {
    return this.bytes().toString("utf8");
  }
}
