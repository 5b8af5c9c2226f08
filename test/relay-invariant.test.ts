// The relay's money invariant, as a property (issue 40 item 6): random traffic from a hostile client
// (streamed and whole calls, streams cut at random points, non-streamed calls abandoned in flight,
// parallel calls, 1-hour cache writes and unknown cache lifetimes, provider errors retried, calls the
// relay refuses, a session that ends under a call) against a loopback provider that counts what it
// billed. Whatever the traffic: kgate's charge is never below what the provider billed, never above
// the trial's worst case, and a run of trials under --max-cost never crosses it. The calls run under
// the provider's adaptive limit as in a run (its 429s lower it; a held call whose harness hung up
// gives its slot back), and no slot outlives its call. fast-check with a fixed seed: the same runs
// every time; nothing depends on the wall clock.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AdaptiveLimit } from "../src/agents/adaptive-limit.ts";
import type { Pricing } from "../src/agents/config.ts";
import { Relay } from "../src/agents/relay/server.ts";
import { TrajectoryRecorder } from "../src/agents/trajectory.ts";
import { CostCeiling } from "../src/cost/ceiling.ts";
import { worstCaseUsd } from "../src/cost/worst-case.ts";
import type { Usage } from "../src/record/index.ts";
import { type BillingStep, type BillingUpstream, startBillingUpstream } from "./support/billing-upstream.ts";
import { hostileCall, until } from "./support/hostile-client.ts";

/** Claude Opus 4.5 as published; 1-hour cache writes at 2x the input price. */
const OPUS: Pricing = {
  inputPerMTok: 5,
  outputPerMTok: 25,
  cacheReadPerMTok: 0.5,
  cacheWritePerMTok: 6.25,
  cacheWrite1hPerMTok: 10,
};
const billedUsd = (b: { input: number; cacheWrite1h: number; output: number }) =>
  (b.input * 5 + b.cacheWrite1h * 10 + b.output * 25) / 1e6;

interface Call {
  stream: boolean;
  asked: number;
  deltas: number;
  tokensPerDelta: number;
  ttl: "none" | "1h" | "24h";
  status: 200 | 400 | 429 | 500;
  /** Streamed: hang up after this many deltas; whole: hang up once the provider has the request. */
  cut: number | null;
  /** Held by the provider before its last delta until the session has ended. */
  held: boolean;
}

const call: fc.Arbitrary<Call> = fc.record({
  stream: fc.boolean(),
  asked: fc.integer({ min: 50, max: 3000 }),
  deltas: fc.integer({ min: 1, max: 12 }),
  tokensPerDelta: fc.integer({ min: 5, max: 200 }),
  ttl: fc.constantFrom("none", "none", "1h", "24h"),
  status: fc.constantFrom(200, 200, 200, 200, 400, 429, 500),
  cut: fc.option(fc.integer({ min: 1, max: 12 }), { freq: 2 }),
  held: fc.integer({ min: 0, max: 6 }).map((n) => n === 0),
});

/** A trial: its caps, and its calls in batches sent in parallel (the relay holds 4 at once). */
interface Trial {
  tokenBudget: number;
  maxOutputTokens: number;
  batches: Call[][];
}
const trial: fc.Arbitrary<Trial> = fc.record({
  tokenBudget: fc.integer({ min: 2000, max: 40_000 }),
  maxOutputTokens: fc.integer({ min: 100, max: 2000 }),
  batches: fc.array(fc.array(call, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 4 }),
});

let upstream: BillingUpstream;
let relay: Relay;
/** The provider's limit, shared by every trial of the file (one session's). */
const limit = new AdaptiveLimit("billing upstream");
/** Per request id: what the provider does with it, when it arrived, and the hold it waits on. */
const scripts = new Map<string, { step: BillingStep; arrived: () => void }>();
const releaseHeld: Array<() => void> = [];
/** Every hold made, released at a trial's end whether or not the provider got its call. */
const unreached: Array<() => void> = [];
let nextId = 0;

beforeAll(async () => {
  upstream = await startBillingUpstream((body) => {
    const id = /id=(\d+)/.exec(JSON.stringify(body))?.[1] ?? "";
    const script = scripts.get(id)!;
    script.arrived();
    return script.step;
  });
  relay = await Relay.start({
    provider: "anthropic",
    upstream: upstream.url,
    apiKey: "sk",
    retry: { maxRetries: 1, baseDelayMs: 1, maxDelayMs: 2 },
    limit,
  });
});
afterAll(async () => {
  await relay.close();
  await upstream.close();
});

function bodyOf(c: Call, id: number): Record<string, unknown> {
  const ttl = c.ttl === "none" ? {} : { ttl: c.ttl };
  return {
    model: "m",
    max_tokens: c.asked,
    stream: c.stream,
    system: [{ type: "text", text: "s".repeat(400), cache_control: { type: "ephemeral", ...ttl } }],
    messages: [{ role: "user", content: `id=${id}` }],
  };
}

/** Sends one call as the hostile client does; resolves once the client is done with it. */
async function send(token: string, c: Call, tag: string): Promise<void> {
  const id = ++nextId;
  let reach = () => {};
  const reached = new Promise<void>((r) => (reach = r));
  let release = () => {};
  const hold = c.held && c.status === 200 ? new Promise<void>((r) => (release = r)) : undefined;
  // a held call counts as open once the provider has it (the relay may refuse it before)
  const arrived = () => {
    if (hold && !releaseHeld.includes(release)) releaseHeld.push(release);
    reach();
  };
  unreached.push(release);
  const step: BillingStep = {
    deltas: c.deltas,
    tokensPerDelta: c.tokensPerDelta,
    text: `<d>${"x".repeat(8)}`,
    tag,
    ...(c.status === 200 ? {} : { status: c.status }),
    ...(hold ? { hold } : {}),
  };
  scripts.set(String(id), { step, arrived });
  const cut =
    c.cut === null
      ? {}
      : c.stream
        ? { hangUpAfter: { copies: c.cut, marker: "<d>" } }
        : { hangUpWhen: reached };
  // a held call's client waits for nothing: it hangs up once the provider has it
  await hostileCall(relay.socketPath, token, {
    path: "/v1/messages",
    body: bodyOf(c, id),
    ...(c.held ? { hangUpWhen: reached } : cut),
  });
}

/** One trial: its calls batch by batch, then the session ends (held calls still open). */
async function runTrial(t: Trial) {
  const session = relay.openSession({
    tokenBudget: t.tokenBudget,
    maxTurns: 50,
    pricing: OPUS,
    trajectory: new TrajectoryRecorder(),
    maxOutputTokens: t.maxOutputTokens,
  });
  const tag = session.token;
  for (const batch of t.batches) await Promise.all(batch.map((c) => send(session.token, c, tag)));
  // every call not held is settled; the held ones are open when the trial ends
  await until(() => session.inFlight === releaseHeld.length);
  relay.closeSession(session);
  releaseHeld.splice(0);
  for (const release of unreached.splice(0)) release();
  await until(() => session.inFlight === 0 && upstream.active.count === 0);
  // what the provider billed this trial's calls, a held one's last delta included
  const billed = upstream.byTag.get(tag) ?? { input: 0, cacheWrite1h: 0, output: 0 };
  return {
    usage: session.usage(),
    billed,
    caps: { ...t, maxTurns: 50, pricing: OPUS, harness: "claude-code" as const },
  };
}

describe("the relay's charge (property)", () => {
  it("is never below what the provider billed, never above the trial's worst case", async () => {
    await fc.assert(
      fc.asyncProperty(trial, async (t) => {
        const { usage, billed, caps } = await runTrial(t);
        const worst = worstCaseUsd(caps, caps.tokenBudget)!;
        // costUsd is rounded to the micro-dollar
        expect(usage.costUsd!).toBeGreaterThanOrEqual(billedUsd(billed) - 1e-6);
        expect(usage.costUsd!).toBeLessThanOrEqual(worst + 1e-6);
        expect(usage.outputTokens).toBeGreaterThanOrEqual(billed.output);
        expect(
          usage.inputTokens + usage.outputTokens + usage.cacheReadTokens + usage.cacheWriteTokens,
        ).toBeLessThanOrEqual(t.tokenBudget);
      }),
      { seed: 40, numRuns: 25, endOnFailure: true },
    );
  }, 55_000);

  it("a run of trials never crosses --max-cost, and pays at least what the provider billed", async () => {
    const run = fc.record({
      trials: fc.array(trial, { minLength: 1, maxLength: 3 }),
      share: fc.double({ min: 0, max: 1.5, noNaN: true }),
    });
    await fc.assert(
      fc.asyncProperty(run, async ({ trials, share }) => {
        const worstOf = (t: Trial) =>
          worstCaseUsd({ ...t, maxTurns: 50, pricing: OPUS, harness: "claude-code" }, t.tokenBudget)!;
        const ceilingUsd = share * trials.reduce((s, t) => s + worstOf(t), 0);
        const ceiling = new CostCeiling<Trial, { usage: Usage }>({
          ceilingUsd,
          spentBefore: 0,
          worstCase: worstOf,
          costOf: (r) => r.usage.costUsd,
          unit: "trial",
        });
        let provider = 0;
        for (const t of trials) {
          const admitted = ceiling.admit(t);
          if (!admitted.ok) continue;
          const { usage, billed } = await runTrial(t);
          provider += billedUsd(billed);
          admitted.settle?.({ usage });
        }
        expect(ceiling.state.spentUsd).toBeLessThanOrEqual(ceilingUsd + 1e-9);
        expect(ceiling.state.spentUsd).toBeGreaterThanOrEqual(provider - 1e-5);
      }),
      { seed: 46, numRuns: 10, endOnFailure: true },
    );
  }, 55_000);

  it("ran under the provider's limit, and every call gave its slot back", () => {
    // the scripted 429s lowered the level from unbounded at least once
    expect(limit.level).toBeLessThan(Number.POSITIVE_INFINITY);
    expect(limit.active).toBe(0);
  });
});
