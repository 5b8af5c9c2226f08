// Test support: the relay forwarder as a host process, stopped after each test.
import { afterThis } from "./cleanups.ts";
import { startForwarderProcess } from "./forwarder-process.ts";

/** Starts the forwarder for `socketPath`; resolves with its base URL once it listens. */
export async function startForwarder(socketPath: string): Promise<string> {
  const forwarder = await startForwarderProcess(socketPath);
  afterThis("test", forwarder.stop);
  return forwarder.url;
}
