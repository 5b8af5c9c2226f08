// Starts the in-container relay forwarder as a host process on a free loopback port (tests, bench).
import { spawn } from "node:child_process";
import path from "node:path";

export const FORWARDER = path.resolve(import.meta.dirname, "../../sandbox/harness/relay-forwarder.mjs");

export function startForwarderProcess(socketPath: string): Promise<{ url: string; stop(): void }> {
  const child = spawn(process.execPath, [FORWARDER, socketPath, "0"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`forwarder exited with ${code}`)));
    child.stdout.on("data", (chunk: Buffer) => {
      const port = /127\.0\.0\.1:(\d+)/.exec(chunk.toString())?.[1];
      if (port) resolve({ url: `http://127.0.0.1:${port}`, stop: () => child.kill() });
    });
  });
}
