// The relay as the relay benchmarks use it: a loopback model answering "ok", a relay in front of it
// and one session without limits (the benchmarks measure the channel, not the budget).
import { Relay } from "../../src/agents/relay/server.ts";
import type { RelaySession } from "../../src/agents/relay/session.ts";
import { TrajectoryRecorder } from "../../src/agents/trajectory.ts";
import { type ModelServer, startModelServer } from "../../test/support/model-server.ts";

export interface BenchRelay {
  server: ModelServer;
  relay: Relay;
  session: RelaySession;
  close(): Promise<void>;
}

export async function startBenchRelay(maxInFlight?: number): Promise<BenchRelay> {
  const server = await startModelServer([{ text: "ok", usage: { input: 10, output: 2 } }]);
  const relay = await Relay.start({
    provider: "anthropic",
    upstream: server.anthropicUrl,
    apiKey: "bench",
    retry: { maxRetries: 0, baseDelayMs: 1, maxDelayMs: 1 },
  });
  const session = relay.openSession({
    tokenBudget: Number.MAX_SAFE_INTEGER,
    maxTurns: Number.MAX_SAFE_INTEGER,
    pricing: null,
    trajectory: new TrajectoryRecorder(),
    ...(maxInFlight === undefined ? {} : { maxInFlight }),
  });
  return {
    server,
    relay,
    session,
    close: async () => {
      await relay.close();
      await server.close();
    },
  };
}
