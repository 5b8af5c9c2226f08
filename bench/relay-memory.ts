// Benchmark: the host memory a relay session keeps for model calls the provider rejects (issue 29,
// item 3; the red team's relay-mem.ts: distinct 1.5 MB user texts in calls answered 400 grew the
// heap until V8 aborted, 0 turns, 0 tokens). Each call carries a distinct text and offers a tool (an
// agent turn, so its context is narrated); the loopback provider answers 400. The figure is the heap
// still held after a full GC, as a ratio of the text sent in the same run: before the fix about 1.0
// (every text kept in seenTexts) plus 64 KiB per call of trajectory. Two sessions: the default
// relay.maxRejectedCalls (32, later calls refused before the provider), and one of 10,000 that
// forwards them all (the hashes and the narration cap alone bound it). Each runs in a process of
// its own.
//   npm run bench relay-memory      or      npx tsx bench/relay-memory.ts
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { request } from "node:http";
import { fileURLToPath } from "node:url";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { Relay } from "../src/agents/relay/server.ts";
import { TrajectoryRecorder } from "../src/agents/trajectory.ts";
import { startModelServer } from "../test/support/model-server.ts";

const CALLS = 200;
const TEXT_BYTES = 1_000_000;

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;
const heapMb = () => {
  gc();
  return process.memoryUsage().heapUsed / 1e6;
};

/** One connection per call (agent: false): no idle keep-alive socket of a closed relay is reused. */
function post(socketPath: string, token: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        socketPath,
        agent: false,
        method: "POST",
        path: "/v1/messages",
        headers: { "x-api-key": token, "content-type": "application/json" },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

async function retained(maxRejectedCalls: number | undefined) {
  const server = await startModelServer(() => ({ status: 400, message: "temperature: must be <= 1" }));
  const relay = await Relay.start({
    provider: "anthropic",
    upstream: server.anthropicUrl,
    apiKey: "bench",
    retry: { maxRetries: 0, baseDelayMs: 1, maxDelayMs: 1 },
  });
  const trajectory = new TrajectoryRecorder();
  const session = relay.openSession({
    tokenBudget: Number.MAX_SAFE_INTEGER,
    maxTurns: 50,
    pricing: null,
    trajectory,
    model: "m",
    ...(maxRejectedCalls === undefined ? {} : { maxRejectedCalls }),
  });
  const before = heapMb();
  let forwarded = 0;
  for (let i = 0; i < CALLS; i++) {
    const text = randomBytes(TEXT_BYTES / 2).toString("hex");
    const body = JSON.stringify({
      model: "x",
      max_tokens: 10,
      tools: [{ name: "t", input_schema: { type: "object" } }],
      messages: [{ role: "user", content: text }],
    });
    if ((await post(relay.socketPath, session.token, body)) === 400) forwarded += 1;
  }
  // the server's own record of the requests is the benchmark's, not the relay's: dropped first
  server.requests.length = 0;
  const held = heapMb() - before;
  const events = trajectory.events.length;
  await relay.close();
  await server.close();
  return { held, forwarded, events };
}

/** One configuration in a process of its own, so that nothing of another run is on its heap. */
function inChild(limit: number | undefined): { held: number; forwarded: number; events: number } {
  const run = spawnSync(
    process.execPath,
    ["--import", "tsx", fileURLToPath(import.meta.url), "--case", String(limit ?? "default")],
    {
      encoding: "utf8",
    },
  );
  if (run.status !== 0) throw new Error(`bench/relay-memory.ts --case failed: ${run.stderr}`);
  return JSON.parse(run.stdout.trim().split("\n").at(-1)!) as {
    held: number;
    forwarded: number;
    events: number;
  };
}

export default async function main(): Promise<void> {
  const sentMb = (CALLS * TEXT_BYTES) / 1e6;
  process.stdout.write(
    `${CALLS} calls of a distinct ${TEXT_BYTES / 1e6} MB user text each (${sentMb} MB sent), answered 400\n\n` +
      "| session | reached the provider | trajectory events | heap held MB | held / sent |\n|---|---|---|---|---|\n",
  );
  for (const [name, limit] of [
    ["maxRejectedCalls 32 (default)", undefined],
    ["maxRejectedCalls 10,000", 10_000],
  ] as const) {
    const r = inChild(limit);
    process.stdout.write(
      `| ${name} | ${r.forwarded} | ${r.events} | ${r.held.toFixed(1)} | ${(r.held / sentMb).toFixed(3)} |\n`,
    );
  }
}

const at = process.argv.indexOf("--case");
if (at > 0) {
  const value = process.argv[at + 1];
  process.stdout.write(
    `${JSON.stringify(await retained(value === "default" ? undefined : Number(value)))}\n`,
  );
} else if (import.meta.url === `file://${process.argv[1]}`) await main();
