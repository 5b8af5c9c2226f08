// Starts the relay forwarder inside the sandbox over a streaming exec and joins its channel to the
// relay's host socket: nothing is mounted, the key stays on the host, and the same channel works on
// local and remote Docker hosts. The forwarder's end (early exit, broken frames) is reported.
import { connect } from "node:net";
import type { ExecStream, Sandbox } from "../../sandbox/index.ts";
import { type ChannelEnd, RelayChannel } from "../relay/channel.ts";
import { RELAY_PORT } from "../relay/server.ts";

/** Installed into every harness image by sandbox/harness/Dockerfile. */
export const FORWARDER_IN_IMAGE = "/opt/kgate/relay-forwarder.mjs";
const READY_TIMEOUT_MS = 30_000;
const STDERR_BYTES = 16 * 1024;

/** The forwarder did not come up: the harness cannot start (infrastructure, retried). */
export class ForwarderStartError extends Error {
  override name = "ForwarderStartError";
}

export interface RelayForwarder {
  channel: RelayChannel;
  /** How the channel ended, once it has. */
  end(): ChannelEnd | null;
  stderr(): string;
  /** Ends the channel and the exec session. */
  stop(): void;
}

export async function startForwarder(
  sandbox: Required<Pick<Sandbox, "execStream">>,
  relaySocket: string,
  readyTimeoutMs = READY_TIMEOUT_MS,
): Promise<RelayForwarder> {
  const session: ExecStream = await sandbox.execStream(["node", FORWARDER_IN_IMAGE, String(RELAY_PORT)], {
    maxStderrBytes: STDERR_BYTES,
  });
  const channel = new RelayChannel(session.stdout, session.stdin, () => connect(relaySocket));
  void channel.ended.then(() => session.close());
  void session.exit.then(
    () => channel.close(),
    (err: Error) => channel.close({ reason: "error", message: err.message }),
  );
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      channel.ready,
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`not ready within ${readyTimeoutMs} ms`)), readyTimeoutMs);
      }),
    ]);
  } catch (err) {
    channel.close();
    const stderr = session.stderr().trim().slice(-500);
    throw new ForwarderStartError(
      `the relay forwarder did not start: ${(err as Error).message}${stderr ? ` (${stderr})` : ""}`,
    );
  } finally {
    clearTimeout(timer);
  }
  return {
    channel,
    end: () => channel.endedWith,
    stderr: () => session.stderr(),
    stop: () => channel.close(),
  };
}
