#!/usr/bin/env node
// The in-container half of the model relay: serves 127.0.0.1:<port> and pipes every connection to the
// host relay's unix socket (the container has no network). With `-- cmd args...` it starts the harness
// once listening, passes signals on, and exits with the harness's exit code.
// Usage: relay-forwarder.mjs <socket-path> <port> [-- command args...]
import { spawn } from "node:child_process";
import net from "node:net";

const [socketPath, portText, separator, ...command] = process.argv.slice(2);
const port = Number(portText);
if (!socketPath || !Number.isInteger(port) || (separator !== undefined && separator !== "--")) {
  process.stderr.write("usage: relay-forwarder.mjs <socket-path> <port> [-- command args...]\n");
  process.exit(2);
}

const server = net.createServer({ noDelay: true }, (client) => {
  client.setNoDelay(true);
  const upstream = net.connect(socketPath);
  client.pipe(upstream).pipe(client);
  const close = () => {
    client.destroy();
    upstream.destroy();
  };
  client.on("error", close);
  upstream.on("error", close);
});

server.on("error", (err) => {
  process.stderr.write(`relay-forwarder: ${err.message}\n`);
  process.exit(2);
});

server.listen(port, "127.0.0.1", () => {
  if (command.length === 0) {
    process.stdout.write(`relay-forwarder: 127.0.0.1:${server.address().port} -> ${socketPath}\n`);
    return;
  }
  const child = spawn(command[0], command.slice(1), { stdio: "inherit" });
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"]) {
    process.on(signal, () => child.kill(signal));
  }
  child.on("error", (err) => {
    process.stderr.write(`relay-forwarder: cannot start ${command[0]}: ${err.message}\n`);
    process.exit(127);
  });
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 128 + 15 : 1)));
});
