// The host half of the relay channel: the in-container forwarder multiplexes every connection it
// accepts on 127.0.0.1:RELAY_PORT as frames over an exec session's stdout/stdin; this side parses
// them (untrusted: the agent's processes can write to the forwarder's stdout), connects each stream
// to the relay, and sends the relay's bytes back. Frame: type u8, stream id u32 BE, length u32 BE,
// payload. A frame that breaks the protocol ends this channel (the trial's relay) and nothing else.
import type { Duplex, Readable, Writable } from "node:stream";

export const FRAME_HEADER = 9;
export const FRAME = { ready: 0, open: 1, data: 2, close: 3 } as const;
/** Largest payload of one frame, both ways. */
export const MAX_FRAME_BYTES = 64 * 1024;
/** Streams one channel (one trial) holds open at once; further opens are closed at once. */
export const DEFAULT_MAX_STREAMS = 32;

export function frame(type: number, stream: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  const header = Buffer.alloc(FRAME_HEADER);
  header.writeUInt8(type, 0);
  header.writeUInt32BE(stream, 1);
  header.writeUInt32BE(payload.length, 5);
  return Buffer.concat([header, payload]);
}

/** How a channel ended: the forwarder went away, it broke the protocol, or the transport failed. */
export type ChannelEnd =
  | { reason: "ended" }
  | { reason: "violation"; message: string }
  | { reason: "error"; message: string };

export interface ChannelOptions {
  maxStreams?: number;
  maxFrameBytes?: number;
}

export class RelayChannel {
  /** The port the forwarder listens on (its ready frame); rejects if the channel ends first. */
  readonly ready: Promise<number>;
  /** Resolves once, when the channel ends. */
  readonly ended: Promise<ChannelEnd>;
  /** Opens refused because maxStreams were open, and streams opened in total. */
  refused = 0;
  opened = 0;
  private readonly streams = new Map<number, Duplex>();
  private lastOpened = 0;
  private isReady = false;
  /** What arrived and is not parsed yet, as the chunks it came in (never re-copied per chunk). */
  private readonly pending = new ChunkQueue();
  /** The header of the frame whose payload is awaited. */
  private header: { type: number; id: number; length: number } | null = null;
  private blocked = new Set<Duplex>();
  private finish!: (end: ChannelEnd) => void;
  private resolveReady!: (port: number) => void;
  private rejectReady!: (err: Error) => void;
  private end: ChannelEnd | null = null;
  private readonly maxStreams: number;
  private readonly maxFrame: number;

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    private readonly connect: () => Duplex,
    options: ChannelOptions = {},
  ) {
    this.maxStreams = options.maxStreams ?? DEFAULT_MAX_STREAMS;
    this.maxFrame = options.maxFrameBytes ?? MAX_FRAME_BYTES;
    this.ready = new Promise((resolve, reject) => {
      this.resolveReady = resolve;
      this.rejectReady = reject;
    });
    this.ready.catch(() => {});
    this.ended = new Promise((resolve) => {
      this.finish = resolve;
    });
    input.on("data", (chunk: Buffer) => this.onData(chunk));
    input.once("end", () => this.close({ reason: "ended" }));
    input.once("close", () => this.close({ reason: "ended" }));
    input.once("error", (err) => this.close({ reason: "error", message: err.message }));
    output.on("error", (err) => this.close({ reason: "error", message: err.message }));
    output.on("drain", () => {
      for (const s of this.streams.values()) s.resume();
    });
  }

  /** How the channel ended; null while it runs. */
  get endedWith(): ChannelEnd | null {
    return this.end;
  }

  get openStreams(): number {
    return this.streams.size;
  }

  /** Ends the channel and every stream of it (idempotent). */
  close(end: ChannelEnd = { reason: "ended" }): void {
    if (this.end) return;
    this.end = end;
    for (const s of this.streams.values()) s.destroy();
    this.streams.clear();
    this.input.removeAllListeners("data");
    if (!this.isReady) this.rejectReady(new Error(describeEnd(end)));
    this.finish(end);
  }

  private onData(chunk: Buffer): void {
    this.pending.push(chunk);
    // a blocked stream stops the parsing too: what waits is at most one chunk of the exec stream
    while (!this.end && this.blocked.size === 0) {
      if (!this.header) {
        if (this.pending.length < FRAME_HEADER) return;
        const h = this.pending.take(FRAME_HEADER);
        this.header = { type: h.readUInt8(0), id: h.readUInt32BE(1), length: h.readUInt32BE(5) };
        if (this.header.length > this.maxFrame) {
          this.close({
            reason: "violation",
            message: `a frame of ${this.header.length} bytes (at most ${this.maxFrame})`,
          });
          return;
        }
      }
      const { type, id, length } = this.header;
      if (this.pending.length < length) return;
      this.header = null;
      const problem = this.onFrame(type, id, this.pending.take(length));
      if (problem) this.close({ reason: "violation", message: problem });
    }
  }

  /** Handles one frame; returns what broke the protocol, or null. */
  private onFrame(type: number, id: number, payload: Buffer): string | null {
    if (type === FRAME.ready) {
      if (this.isReady) return "a second ready frame";
      const port = payload.toString("latin1");
      if (!/^\d{1,5}$/.test(port)) return "a ready frame without a port";
      this.isReady = true;
      this.resolveReady(Number(port));
      return null;
    }
    if (!this.isReady) return `frame type ${type} before the ready frame`;
    if (type === FRAME.open) {
      if (id <= this.lastOpened) return `stream ${id} opened out of order`;
      this.lastOpened = id;
      this.open(id);
      return null;
    }
    if (type !== FRAME.data && type !== FRAME.close) return `unknown frame type ${type}`;
    if (id > this.lastOpened || id === 0) return `frame for stream ${id}, never opened`;
    const stream = this.streams.get(id);
    if (!stream) return null; // closed here while the forwarder was still sending
    if (type === FRAME.close) {
      this.streams.delete(id);
      stream.destroy();
    } else if (!stream.write(payload) && !this.blocked.has(stream)) {
      // the relay is slow to read this stream: stop reading the channel until it drains
      this.blocked.add(stream);
      this.input.pause();
      stream.once("drain", () => this.unblock(stream));
    }
    return null;
  }

  private unblock(stream: Duplex): void {
    if (!this.blocked.delete(stream) || this.blocked.size > 0 || this.end) return;
    this.onData(Buffer.alloc(0));
    if (this.blocked.size === 0) this.input.resume();
  }

  private open(id: number): void {
    this.opened += 1;
    if (this.streams.size >= this.maxStreams) {
      this.refused += 1;
      this.send(FRAME.close, id);
      return;
    }
    const stream = this.connect();
    this.streams.set(id, stream);
    stream.on("data", (chunk: Buffer) => {
      let ok = true;
      for (let at = 0; at < chunk.length; at += this.maxFrame)
        ok = this.send(FRAME.data, id, chunk.subarray(at, at + this.maxFrame));
      if (!ok) stream.pause();
    });
    const gone = () => {
      this.unblock(stream);
      if (this.streams.get(id) !== stream) return;
      this.streams.delete(id);
      this.send(FRAME.close, id);
    };
    stream.once("close", gone);
    stream.once("end", () => stream.destroy());
    stream.on("error", () => stream.destroy());
  }

  private send(type: number, id: number, payload?: Buffer): boolean {
    if (this.end) return true;
    return this.output.write(frame(type, id, payload));
  }
}

export function describeEnd(end: ChannelEnd): string {
  if (end.reason === "ended") return "the relay forwarder in the sandbox went away";
  if (end.reason === "violation") return `the relay channel broke its protocol: ${end.message}`;
  return `the relay channel failed: ${end.message}`;
}

/**
 * Bytes as a list of the chunks they arrived in: push is O(1), take(n) copies only the n bytes it
 * returns (none when they lie in one chunk), so a frame dribbled in 1-byte chunks costs linear time,
 * where re-concatenating the pending buffer on every chunk cost quadratic time (issue 29, item 7).
 */
class ChunkQueue {
  private chunks: Buffer[] = [];
  /** Bytes of chunks[0] already taken. */
  private offset = 0;
  length = 0;

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.chunks.push(chunk);
    this.length += chunk.length;
  }

  /** The first n bytes (n <= length), removed. */
  take(n: number): Buffer {
    const first = this.chunks[0];
    if (first && first.length - this.offset >= n) {
      const out = first.subarray(this.offset, this.offset + n);
      this.offset += n;
      if (this.offset === first.length) {
        this.chunks.shift();
        this.offset = 0;
      }
      this.length -= n;
      return out;
    }
    const out = Buffer.allocUnsafe(n);
    let copied = 0;
    let used = 0;
    while (copied < n) {
      const chunk = this.chunks[used]!;
      const part = Math.min(chunk.length - this.offset, n - copied);
      chunk.copy(out, copied, this.offset, this.offset + part);
      copied += part;
      if (this.offset + part === chunk.length) {
        used += 1;
        this.offset = 0;
      } else this.offset += part;
    }
    // the chunks used up go; `offset` already points into the next one
    this.chunks.splice(0, used);
    this.length -= n;
    return out;
  }
}
