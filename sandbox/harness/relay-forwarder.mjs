#!/usr/bin/env node
// The in-container half of the model relay (the container has no network): serves 127.0.0.1:<port>
// and multiplexes every connection it accepts over its own stdout/stdin, which kgate holds through
// an exec session. Frame: type u8 (0 ready, 1 open, 2 data, 3 close), stream id u32 BE, payload
// length u32 BE (at most 64 KiB), payload. It writes a ready frame once listening, and exits when
// its stdin ends. Usage: relay-forwarder.mjs <port>   (port 0: any free port, for tests)
import net from "node:net";

const READY = 0;
const OPEN = 1;
const DATA = 2;
const CLOSE = 3;
const HEADER = 9;
const MAX_FRAME = 64 * 1024;

const port = Number(process.argv[2]);
if (!Number.isInteger(port) || process.argv.length !== 3) {
  process.stderr.write("usage: relay-forwarder.mjs <port>\n");
  process.exit(2);
}

const clients = new Map();
let nextId = 1;
const paused = new Set();

function send(type, id, payload = Buffer.alloc(0)) {
  const header = Buffer.alloc(HEADER);
  header.writeUInt8(type, 0);
  header.writeUInt32BE(id, 1);
  header.writeUInt32BE(payload.length, 5);
  return process.stdout.write(Buffer.concat([header, payload]));
}

process.stdout.on("drain", () => {
  for (const c of clients.values()) c.resume();
});
process.stdout.on("error", () => process.exit(0));

const server = net.createServer({ noDelay: true }, (client) => {
  const id = nextId++;
  clients.set(id, client);
  send(OPEN, id);
  client.on("data", (chunk) => {
    let ok = true;
    for (let at = 0; at < chunk.length; at += MAX_FRAME)
      ok = send(DATA, id, chunk.subarray(at, at + MAX_FRAME));
    if (!ok) client.pause();
  });
  client.on("error", () => client.destroy());
  client.on("end", () => client.destroy());
  client.on("close", () => {
    resumeFrom(client);
    if (clients.get(id) === client) {
      clients.delete(id);
      send(CLOSE, id);
    }
  });
});

function resumeFrom(client) {
  paused.delete(client);
  if (paused.size === 0) process.stdin.resume();
}

let pending = Buffer.alloc(0);
process.stdin.on("data", (chunk) => {
  pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
  while (pending.length >= HEADER) {
    const type = pending.readUInt8(0);
    const id = pending.readUInt32BE(1);
    const length = pending.readUInt32BE(5);
    if (length > MAX_FRAME) {
      process.stderr.write(`relay-forwarder: a frame of ${length} bytes from kgate\n`);
      process.exit(2);
    }
    if (pending.length < HEADER + length) return;
    const payload = pending.subarray(HEADER, HEADER + length);
    pending = pending.subarray(HEADER + length);
    const client = clients.get(id);
    if (!client) continue;
    if (type === CLOSE) {
      clients.delete(id);
      client.destroy();
    } else if (type === DATA && !client.write(payload) && !paused.has(client)) {
      paused.add(client);
      process.stdin.pause();
      client.once("drain", () => resumeFrom(client));
    }
  }
});
process.stdin.on("end", () => process.exit(0));

server.on("error", (err) => {
  process.stderr.write(`relay-forwarder: ${err.message}\n`);
  process.exit(2);
});

server.listen(port, "127.0.0.1", () => {
  send(READY, 0, Buffer.from(String(server.address().port)));
});
