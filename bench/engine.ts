// The trial engine does not serialise what waits on the model: built-in-loop trials against a
// scripted loopback model that answers each turn after 1 s (5 turns a trial: four bash calls and a
// finish), in real containers, at concurrency 1 and 8; trials per minute and their ratio (target >= 6x).
import { cpus, loadavg } from "node:os";
import { projectPaths } from "../src/project.ts";
import { DockerProvider } from "../src/sandbox/docker/provider.ts";
import { runTrial } from "../src/trial/index.ts";
import { timedTrials, waitingAgent } from "./support/waiting-agent.ts";

const TURN_DELAY_MS = 1000;
const TURNS = 5;
const LEVELS: Array<{ concurrency: number; trials: number }> = [
  { concurrency: 1, trials: 3 },
  { concurrency: 8, trials: 16 },
];

export default async function engineBench(): Promise<void> {
  const waiting = await waitingAgent("engine", TURNS, TURN_DELAY_MS);
  const { paths, agent, close } = waiting;
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
      const { wallMs: wall } = await timedTrials(waiting, {
        runId: `bench-engine-c${concurrency}`,
        concurrency,
        trials,
        runner: (job, signal) => runTrial({ paths, ...job, agent, provider, image, verify: null, signal }),
      });
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
