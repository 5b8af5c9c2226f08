// Benchmark: the relay channel's frame reassembly when the container dribbles legal 64 KiB data frames
// in tiny exec-stream chunks (issue 29, item 7; the red team's channel-cpu.ts). Host CPU of the real
// RelayChannel against, in the same run, the reassembly it replaced (re-concatenating the pending
// buffer on every chunk, copied below as the baseline), and against feeding the same bytes whole.
// A ratio "before / after" that grows as chunks shrink was the quadratic cost; "after / whole" flat-ish
// means linear.   npm run bench channel      or      npx tsx bench/channel.ts
import { Duplex, PassThrough } from "node:stream";
import { FRAME, FRAME_HEADER, frame, RelayChannel } from "../src/agents/relay/channel.ts";

const FRAMES = 4;
const big = frame(FRAME.data, 1, Buffer.alloc(64 * 1024, 0x61));

/** The parsing loop before issue 29: the whole pending buffer copied on every chunk. */
function quadraticReassembly(): (chunk: Buffer) => void {
  let pending: Buffer = Buffer.alloc(0);
  return (chunk) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    while (pending.length >= FRAME_HEADER) {
      const length = pending.readUInt32BE(5);
      if (pending.length < FRAME_HEADER + length) return;
      pending = pending.subarray(FRAME_HEADER + length);
    }
  };
}

/** The real channel, ready and with stream 1 open to a sink; returns its input's feeder. */
function realChannel(): (chunk: Buffer) => void {
  const input = new PassThrough();
  const output = new PassThrough();
  output.resume();
  const sink = () => new Duplex({ read() {}, write: (_c, _e, done) => done() });
  const channel = new RelayChannel(input, output, sink);
  // the parser is what is measured: chunks go to it as the input stream's data events would
  const feed = (chunk: Buffer) => input.emit("data", chunk);
  feed(frame(FRAME.ready, 0, Buffer.from("4100")));
  feed(frame(FRAME.open, 1));
  void channel;
  return feed;
}

function cpuMs(feed: (chunk: Buffer) => void, chunkBytes: number): number {
  const start = process.cpuUsage();
  for (let f = 0; f < FRAMES; f++) {
    for (let at = 0; at < big.length; at += chunkBytes) feed(big.subarray(at, at + chunkBytes));
  }
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

export default async function main(): Promise<void> {
  const whole = cpuMs(realChannel(), big.length);
  process.stdout.write(
    `${FRAMES} frames of 64 KiB each; fed whole to the channel: ${whole.toFixed(1)} ms CPU\n\n` +
      "| chunk bytes | before (copy per chunk) ms | after (list of chunks) ms | before / after | after / whole |\n" +
      "|---|---|---|---|---|\n",
  );
  for (const chunk of [1024, 64, 16, 1]) {
    const before = cpuMs(quadraticReassembly(), chunk);
    const after = cpuMs(realChannel(), chunk);
    process.stdout.write(
      `| ${chunk} | ${before.toFixed(0)} | ${after.toFixed(0)} | ${(before / after).toFixed(1)} | ${(after / Math.max(whole, 0.1)).toFixed(0)} |\n`,
    );
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
