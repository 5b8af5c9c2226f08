// Test support: a process that starts the real model relay, prints its socket folder and keeps
// serving until it is killed (SIGTERM closes the relay; SIGKILL leaves its folder behind).
import { Relay } from "../../src/agents/relay/server.ts";

const relay = await Relay.start({
  provider: "anthropic",
  upstream: "http://127.0.0.1:9",
  apiKey: "sk-unused",
  retry: { maxRetries: 0, baseDelayMs: 1, maxDelayMs: 1 },
});
process.once("SIGTERM", () => void relay.close().then(() => process.exit(0)));
process.stdout.write(`${relay.socketDir}\n`);
