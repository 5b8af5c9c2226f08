// Probe trials do not serialise what waits on the model: `kgate probe recite` (in process, the real
// Anthropic SDK client) against a scripted loopback model that answers every call after 500 ms (two
// calls a trial), 8 trials at concurrency 1, 2 and 4; trials per minute and the ratio to concurrency 1
// measured in the same run (ideal: the concurrency itself, as the model's wait dominates; each trial
// also runs its verifier in a worker, which costs CPU).
//   npm run bench probes      or      npx tsx bench/probes.ts
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import path from "node:path";
import { PassThrough } from "node:stream";
import { pathToFileURL } from "node:url";
import { reciteCommand } from "../src/commands/probe.ts";
import { projectPaths } from "../src/project.ts";
import { scaffoldTask } from "../src/task/index.ts";
import { type SeenRequest, startModelServer } from "../test/support/model-server.ts";

/** 3 * 1.12 and 5 * 1.12: the scaffolded task's answer under its artefact's 12%. */
const CORRECT = "item,value\nwidget,3.36\ngadget,5.60\n";

/** A model that knows and applies the convention: it states 12% when asked, then answers right. */
function knower(request: SeenRequest) {
  const messages = request.body.messages as Array<{ role: string; content: unknown }>;
  const last = JSON.stringify(messages.filter((m) => m.role === "user").at(-1)?.content ?? "");
  const text = last.includes("fenced block labelled json")
    ? '```json\n{"rate": 0.12}\n```\n'
    : `\`\`\`output/result.csv\n${CORRECT}\`\`\`\n`;
  return { text, usage: { input: 500, output: 50 } };
}

const CALL_DELAY_MS = 500;
const LEVELS = [1, 2, 4];
const TRIALS = 8;

export default async function probesBench(): Promise<void> {
  const server = await startModelServer((request) => ({ ...knower(request), delayMs: CALL_DELAY_MS }));
  const dir = mkdtempSync(path.join(tmpdir(), "kgate-bench-probes-"));
  const paths = projectPaths(dir);
  scaffoldTask(paths, { id: "demo", gate: "convention" });
  const config = { harness: "builtin", provider: "anthropic", model: "knower", baseUrl: server.anthropicUrl };
  writeFileSync(
    paths.config,
    JSON.stringify({ agents: { knower: { ...config, apiKeyEnv: "KGATE_PROBE_KEY" } } }),
  );
  process.env.KGATE_PROBE_KEY = "sk-bench";
  console.log(
    `scripted model: 2 calls a trial, ${CALL_DELAY_MS} ms each; ${cpus().length} CPUs, load ${loadavg()[0]?.toFixed(1)}\n`,
  );
  console.log("| concurrency | trials | wall | trials / min | vs concurrency 1 |");
  console.log("|---|---|---|---|---|");
  const once = (runId: string, n: number, concurrency: number) =>
    reciteCommand({ paths, stdout: new PassThrough().resume(), stderr: new PassThrough().resume() }, "demo", {
      agent: ["knower"],
      n: String(n),
      runId,
      concurrency,
    });
  let base = 0;
  try {
    // one trial first, unmeasured: module loading, the verifier's first load, the first connection
    await once("bench-probe-warm-up", 1, 1);
    for (const concurrency of LEVELS) {
      const started = performance.now();
      const code = await once(`bench-probe-c${concurrency}`, TRIALS, concurrency);
      const wall = (performance.now() - started) / 1000;
      if (code !== 0) throw new Error(`kgate probe recite at concurrency ${concurrency} exited ${code}`);
      const rate = (TRIALS / wall) * 60;
      if (concurrency === 1) base = rate;
      console.log(
        `| ${concurrency} | ${TRIALS} | ${wall.toFixed(2)} s | ${rate.toFixed(1)} | ${(rate / base).toFixed(2)}x |`,
      );
    }
  } finally {
    delete process.env.KGATE_PROBE_KEY;
    await server.close();
    if (!process.env.KGATE_BENCH_KEEP) rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await probesBench();
