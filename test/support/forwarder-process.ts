// Starts the in-container relay forwarder as a host process on a free loopback port (tests, bench),
// its channel on stdin/stdout joined to the relay's socket by the same host half kgate uses.
import { spawn } from "node:child_process";
import { connect } from "node:net";
import path from "node:path";
import { RelayChannel } from "../../src/agents/relay/channel.ts";

export const FORWARDER = path.resolve(import.meta.dirname, "../../sandbox/harness/relay-forwarder.mjs");

export async function startForwarderProcess(
  socketPath: string,
): Promise<{ url: string; channel: RelayChannel; stop(): void }> {
  const child = spawn(process.execPath, [FORWARDER, "0"], { stdio: ["pipe", "pipe", "inherit"] });
  const channel = new RelayChannel(child.stdout, child.stdin, () => connect(socketPath));
  const port = await channel.ready;
  return {
    url: `http://127.0.0.1:${port}`,
    channel,
    stop: () => {
      channel.close();
      child.kill();
    },
  };
}
