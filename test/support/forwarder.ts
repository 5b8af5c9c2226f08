// Test support: runs the in-container relay forwarder as a host process on a free loopback port.
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { afterEach } from "vitest";

export const FORWARDER = path.resolve(import.meta.dirname, "../../sandbox/harness/relay-forwarder.mjs");

const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) child.kill();
});

/** Starts the forwarder for `socketPath`; resolves with its base URL once it listens. */
export function startForwarder(socketPath: string): Promise<string> {
  const child = spawn(process.execPath, [FORWARDER, socketPath, "0"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  started.push(child);
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`forwarder exited with ${code}`)));
    child.stdout!.on("data", (chunk: Buffer) => {
      const port = /127\.0\.0\.1:(\d+)/.exec(chunk.toString())?.[1];
      if (port) resolve(`http://127.0.0.1:${port}`);
    });
  });
}
