// Test support: the relay forwarder as a host process, stopped after each test.
import { afterEach } from "vitest";
import { startForwarderProcess } from "./forwarder-process.ts";

const started: Array<() => void> = [];
afterEach(() => {
  for (const stop of started.splice(0)) stop();
});

/** Starts the forwarder for `socketPath`; resolves with its base URL once it listens. */
export async function startForwarder(socketPath: string): Promise<string> {
  const forwarder = await startForwarderProcess(socketPath);
  started.push(forwarder.stop);
  return forwarder.url;
}
