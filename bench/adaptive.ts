// Benchmark (issue 44 item 6): adaptive concurrency per provider against loopback providers that
// admit at most P calls at once (each held D ms) and answer 429 with retry-after beyond. Three
// clients run at once in this process, each against its own provider: P workers (the same-run
// baseline), fixed concurrency 4P, and adaptive with 4P as the ceiling; all use kgate's withRetry
// (back-off honouring retry-after), adaptive adds AdaptiveLimit. Reported: completed calls per
// minute as ratios to the provider's capacity (P per D) and to the baseline, and the share of
// answers that were 429. Target: adaptive >= 0.9x of capacity with under 5% of calls answered 429.
//   npm run bench adaptive      or      npx tsx bench/adaptive.ts [seconds per run]
import { setMaxListeners } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { AdaptiveLimit } from "../src/agents/adaptive-limit.ts";
import { withRetry } from "../src/agents/retry.ts";

const P = 4;
const HOLD_MS = 100;
const RETRY_AFTER_MS = 200;
const POLICY = { maxRetries: 20, baseDelayMs: 50, maxDelayMs: 2000 };

interface Tally {
  ok: number;
  refused: number;
}

/** The provider: P calls at once, each answered after HOLD_MS; beyond P, 429 with retry-after-ms. */
async function provider(tally: Tally) {
  let busy = 0;
  const server = createServer((req, res) => {
    req.resume();
    if (busy >= P) {
      tally.refused += 1;
      res.writeHead(429, { "retry-after-ms": String(RETRY_AFTER_MS) }).end("overloaded");
      return;
    }
    busy += 1;
    setTimeout(() => {
      busy -= 1;
      tally.ok += 1;
      res.writeHead(200).end("ok");
    }, HOLD_MS);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` };
}

async function call(url: string): Promise<void> {
  const r = await fetch(url, { method: "POST", body: "{}" });
  await r.text();
  if (r.status !== 200)
    throw Object.assign(new Error(`status ${r.status}`), { status: r.status, headers: r.headers });
}

/** `workers` clients calling in a loop for `ms`; the provider's tally over that time. */
async function measure(workers: number, ms: number, limit?: AdaptiveLimit): Promise<Tally> {
  const tally = { ok: 0, refused: 0 };
  const { server, url } = await provider(tally);
  const stop = AbortSignal.timeout(ms);
  setMaxListeners(4 * workers, stop); // each worker's back-off listens to it
  const loop = async () => {
    while (!stop.aborted) {
      await withRetry(() => call(url), POLICY, { signal: stop, limit }).catch(() => {});
    }
  };
  await Promise.all(Array.from({ length: workers }, loop));
  const counted = { ...tally };
  await new Promise((resolve) => server.close(resolve));
  return counted;
}

export default async function main(seconds = 20): Promise<void> {
  const ms = seconds * 1000;
  const levels: number[] = [];
  // At once, so the machine's load is the same for all three.
  const [base, fixed, adaptive] = await Promise.all([
    measure(P, ms),
    measure(4 * P, ms),
    measure(4 * P, ms, new AdaptiveLimit("bench", { onLevel: (l) => levels.push(l) })),
  ]);
  const perMinute = (t: Tally) => (t.ok * 60_000) / ms;
  const capacity = (P * 60_000) / HOLD_MS;
  const share = (t: Tally) => (t.ok + t.refused === 0 ? 0 : t.refused / (t.ok + t.refused));
  process.stdout.write(
    `provider: ${P} calls at once, ${HOLD_MS} ms each (capacity ${capacity} calls/min), 429 with retry-after-ms ${RETRY_AFTER_MS} beyond; the three clients run at once for ${seconds} s\n\n` +
      "| client | completed calls/min | ratio to capacity | ratio to baseline | answers 429 |\n|---|---|---|---|---|\n",
  );
  for (const [name, t] of [
    [`baseline: ${P} workers`, base],
    [`fixed: ${4 * P} workers`, fixed],
    [`adaptive: ${4 * P} workers, ceiling ${4 * P}`, adaptive],
  ] as const) {
    const rate = perMinute(t);
    process.stdout.write(
      `| ${name} | ${rate.toFixed(0)} | ${(rate / capacity).toFixed(2)} | ${(rate / perMinute(base)).toFixed(2)} | ${(100 * share(t)).toFixed(1)}% |\n`,
    );
  }
  process.stdout.write(`\nadaptive levels, in order: ${levels.join(" ")}\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) await main(Number(process.argv[2] ?? 20));
