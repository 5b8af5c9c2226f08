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
  private pending: Buffer = Buffer.alloc(0);
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
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    // a blocked stream stops the parsing too: what waits is at most one chunk of the exec stream
    while (!this.end && this.blocked.size === 0 && this.pending.length >= FRAME_HEADER) {
      const type = this.pending.readUInt8(0);
      const id = this.pending.readUInt32BE(1);
      const length = this.pending.readUInt32BE(5);
      let problem: string | null = null;
      if (length > this.maxFrame) problem = `a frame of ${length} bytes (at most ${this.maxFrame})`;
      else if (this.pending.length < FRAME_HEADER + length) return;
      else {
        const payload = this.pending.subarray(FRAME_HEADER, FRAME_HEADER + length);
        this.pending = this.pending.subarray(FRAME_HEADER + length);
        problem = this.onFrame(type, id, payload);
      }
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
