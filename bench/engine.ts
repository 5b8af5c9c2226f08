// The trial engine does not serialise what waits on the model: built-in-loop trials against a
// scripted loopback model that answers each turn after 1 s (5 turns a trial: four bash calls and a
// finish), in real containers, at concurrency 1 and 8; trials per minute and their ratio (target >= 6x).
import { cpus, loadavg } from "node:os";
import path from "node:path";
import { projectPaths } from "../src/project.ts";
import { DockerProvider } from "../src/sandbox/index.ts";
import { agentInfoOf, runTrial, TrialEngine } from "../src/trial/index.ts";
import { waitingAgent } from "./support/waiting-agent.ts";

const TURN_DELAY_MS = 1000;
const TURNS = 5;
const LEVELS: Array<{ concurrency: number; trials: number }> = [
  { concurrency: 1, trials: 3 },
  { concurrency: 8, trials: 16 },
];

export default async function engineBench(): Promise<void> {
  const { paths, task, agent, close } = await waitingAgent("engine", TURNS, TURN_DELAY_MS);
  const provider = new DockerProvider();
  const image = await provider.prepareImage(projectPaths(process.cwd()));
  console.log(
    `scripted model: ${TURNS} turns a trial, ${TURN_DELAY_MS} ms each; ${cpus().length} CPUs, load ${loadavg()[0]?.toFixed(1)}\n`,
  );
  console.log("| concurrency | trials | wall | trials / min | vs concurrency 1 |");
  console.log("|---|---|---|---|---|");
  let base = 0;
  try {
    for (const { concurrency, trials } of LEVELS) {
      const runId = `bench-engine-c${concurrency}`;
      const engine = new TrialEngine({
        runId,
        runDir: path.join(paths.runs, runId),
        concurrency,
        runner: (job, signal) => runTrial({ paths, ...job, agent, provider, image, verify: null, signal }),
      });
      const info = agentInfoOf(agent);
      const started = performance.now();
      const records = await engine.runAll(
        Array.from({ length: trials }, (_, index) => ({
          task,
          condition: "+A" as const,
          agent: info,
          index,
        })),
      );
      const wall = performance.now() - started;
      const bad = records.filter((r) => r.error || r.stopReason !== "finish");
      if (bad.length > 0)
        throw new Error(`trial failed: ${JSON.stringify(bad[0]?.error ?? bad[0]?.stopReason)}`);
      const perMinute = (trials / wall) * 60_000;
      if (concurrency === 1) base = perMinute;
      console.log(
        `| ${concurrency} | ${trials} | ${(wall / 1000).toFixed(1)} s | ${perMinute.toFixed(1)} | ${(perMinute / base).toFixed(2)}x |`,
      );
    }
  } finally {
    await close();
  }
}
