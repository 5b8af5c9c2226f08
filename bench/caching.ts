// Benchmark: what prompt caching saves the built-in loop. The same scripted 30-turn session (each
// turn one bash call in a real Docker sandbox, ~1.2 KB of output growing the conversation) runs twice
// through the real Anthropic SDK against the loopback model server, which bills input by prefix
// like the Messages API (cache_control breakpoints, 1024-token minimum; test/support/model-cache.ts):
// once with kgate's breakpoints (the baseline: none), priced with the project's `frontier-builtin`
// configuration. Reports the input cost of each and their ratio; fails above 0.35.
//   npx tsx bench/caching.ts   (or npm run bench caching)
import { pathToFileURL } from "node:url";
import type { Pricing } from "../src/agents/config.ts";
import { CallLedger, loadAgentConfigs } from "../src/agents/index.ts";
import { runToolLoop } from "../src/agents/loop.ts";
import { AnthropicModel } from "../src/agents/providers/anthropic.ts";
import { TrajectoryRecorder } from "../src/agents/trajectory.ts";
import { projectPaths } from "../src/project.ts";
import type { Usage } from "../src/record/index.ts";
import { DockerSandbox } from "../src/sandbox/docker/container.ts";
import { ensureSandboxImage } from "../src/sandbox/docker/image.ts";
import { longSession } from "../test/support/cached-session.ts";
import { startModelServer } from "../test/support/model-server.ts";

const TURNS = 30;
const LIMIT = 0.35;
const LABELS = { kgate: "1", "kgate.run": `bench-caching-${process.pid}` };

/** USD of the input side only: uncached input, cache reads and cache writes at their prices. */
export function inputCostUsd(u: Usage, p: Pricing): number {
  const read = p.cacheReadPerMTok ?? p.inputPerMTok;
  const write = p.cacheWritePerMTok ?? p.inputPerMTok;
  return (u.inputTokens * p.inputPerMTok + u.cacheReadTokens * read + u.cacheWriteTokens * write) / 1e6;
}

async function session(image: string, promptCaching: boolean, pricing: Pricing): Promise<Usage> {
  const server = await startModelServer(longSession(TURNS), { promptCache: { minTokens: 1024 } });
  const sandbox = await DockerSandbox.create({
    image,
    limits: { cpus: 1, memoryMb: 512, pids: 256 },
    labels: LABELS,
  });
  try {
    const result = await runToolLoop({
      model: new AnthropicModel({
        model: "bench",
        baseUrl: server.anthropicUrl,
        apiKey: "bench",
        promptCaching,
      }),
      sandbox,
      instruction: "Print the numbers block by block with seq, 300 per turn, then finish.",
      system: "You are an autonomous agent working in a Linux sandbox without network access.",
      maxTurns: TURNS,
      tokenBudget: Number.MAX_SAFE_INTEGER,
      timeoutSec: 600,
      maxOutputTokens: 1024,
      tools: { bashTimeoutSec: 30, outputCapBytes: 16_384 },
      retry: { maxRetries: 0, baseDelayMs: 1, maxDelayMs: 1 },
      ledger: new CallLedger(pricing),
      signal: new AbortController().signal,
      trajectory: new TrajectoryRecorder(),
    });
    if (result.stopReason !== "finish" || result.turns !== TURNS) {
      throw new Error(`session ended with ${result.stopReason} after ${result.turns} turns`);
    }
    return result.usage;
  } finally {
    await sandbox.remove();
    await server.close();
  }
}

export default async function main(): Promise<void> {
  const paths = projectPaths(process.cwd());
  const pricing = loadAgentConfigs(paths).agents.find((a) => a.name === "frontier-builtin")?.pricing;
  if (!pricing) throw new Error("kgate.config.json has no priced frontier-builtin configuration");
  const image = await ensureSandboxImage(paths);
  const baseline = await session(image, false, pricing);
  const cached = await session(image, true, pricing);
  const row = (name: string, u: Usage) =>
    `| ${name} | ${u.inputTokens} | ${u.cacheReadTokens} | ${u.cacheWriteTokens} | $${inputCostUsd(u, pricing).toFixed(4)} |`;
  const ratio = inputCostUsd(cached, pricing) / inputCostUsd(baseline, pricing);
  process.stdout.write(
    [
      `${TURNS}-turn scripted session, prices of frontier-builtin (input $${pricing.inputPerMTok}, cache read $${pricing.cacheReadPerMTok}, cache write $${pricing.cacheWritePerMTok} per MTok)`,
      "",
      "| session | input tokens | cache read | cache write | input cost |",
      "|---|---|---|---|---|",
      row("no breakpoints (baseline)", baseline),
      row("kgate breakpoints", cached),
      "",
      `input cost ratio (cached / baseline): ${ratio.toFixed(3)} (limit ${LIMIT})`,
      "",
    ].join("\n"),
  );
  if (ratio > LIMIT) throw new Error(`input cost ratio ${ratio.toFixed(3)} is above ${LIMIT}`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
