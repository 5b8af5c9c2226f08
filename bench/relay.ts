// Benchmark: the cost of the model relay. The same sequence of Anthropic Messages calls (the real SDK
// against the loopback model server) goes direct, then through forwarder (TCP) -> relay (unix socket);
// small and large (~200 KB, like a harness's late-turn request) bodies, JSON and streamed replies.
// Then, in Docker, one small call from inside a sandbox over the exec-stream channel vs the
// bind-mounted socket it replaced (bench/support/relay-channels.ts).
//   npx tsx bench/relay.ts [calls]
import { pathToFileURL } from "node:url";
import Anthropic from "@anthropic-ai/sdk";
import { startForwarderProcess } from "../test/support/forwarder-process.ts";
import { startBenchRelay } from "./support/bench-relay.ts";
import { benchRelayChannels, formatRelayChannels } from "./support/relay-channels.ts";

export interface RelayCase {
  name: string;
  directMs: number;
  relayMs: number;
  /** relay / direct mean latency per call. */
  ratio: number;
}

async function timeCalls(client: Anthropic, calls: number, body: string, stream: boolean): Promise<number> {
  const params = { model: "bench", max_tokens: 64, messages: [{ role: "user" as const, content: body }] };
  const started = performance.now();
  for (let i = 0; i < calls; i++) {
    if (stream) await client.messages.stream(params).finalMessage();
    else await client.messages.create(params);
  }
  return (performance.now() - started) / calls;
}

export async function benchRelay(calls = 200): Promise<RelayCase[]> {
  const { server, relay, session, close } = await startBenchRelay();
  const forwarder = await startForwarderProcess(relay.socketPath);
  try {
    const direct = new Anthropic({ apiKey: "bench", baseURL: server.anthropicUrl, maxRetries: 0 });
    const relayed = new Anthropic({ apiKey: session.token, baseURL: forwarder.url, maxRetries: 0 });
    const small = "hello";
    const large = "x".repeat(200 * 1024);
    const cases: Array<[string, string, boolean]> = [
      ["small body, JSON reply", small, false],
      ["small body, streamed reply", small, true],
      ["200 KB body, JSON reply", large, false],
      ["200 KB body, streamed reply", large, true],
    ];
    const out: RelayCase[] = [];
    for (const [name, body, stream] of cases) {
      await timeCalls(direct, 10, body, stream); // warm-up
      await timeCalls(relayed, 10, body, stream);
      const directMs = await timeCalls(direct, calls, body, stream);
      const relayMs = await timeCalls(relayed, calls, body, stream);
      out.push({ name, directMs, relayMs, ratio: relayMs / directMs });
    }
    return out;
  } finally {
    forwarder.stop();
    await close();
  }
}

export function formatRelay(cases: readonly RelayCase[]): string {
  const lines = cases.map(
    (c) =>
      `  ${c.name.padEnd(30)} direct ${c.directMs.toFixed(2).padStart(7)} ms/call   relay ${c.relayMs.toFixed(2).padStart(7)} ms/call   ratio ${c.ratio.toFixed(2)}`,
  );
  return `model relay overhead (baseline: the same calls direct, same run)\n${lines.join("\n")}\n`;
}

/** Called by bench/run.ts. */
export default async function main(calls = 200): Promise<void> {
  process.stdout.write(formatRelay(await benchRelay(calls)));
  process.stdout.write(`\n${formatRelayChannels(await benchRelayChannels(calls))}`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  await main(Number(process.argv[2] ?? 200));
}
