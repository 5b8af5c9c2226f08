// Two Docker hosts of capacity 4 against one: built-in-loop trials against a scripted loopback model
// that answers each turn after 1 s (5 turns a trial), placed by the host pool through the sandbox
// runner, the second host a second dockerd on this machine (needs root). Trials per minute and their
// ratio in the same run (target >= 1.7x). The exec-stream relay's round trip is bench/relay.ts's.
import { cpus, loadavg } from "node:os";
import { projectPaths } from "../src/project.ts";
import type { PoolHost } from "../src/sandbox/docker/host-pool.ts";
import { HostPoolProvider } from "../src/sandbox/docker/host-pool.ts";
import { openSandboxRunner } from "../src/trial/index.ts";
import { copyImage, startSecondDaemon } from "../test/support/second-daemon.ts";
import { timedTrials, waitingAgent } from "./support/waiting-agent.ts";

const TURN_DELAY_MS = 1000;
const TURNS = 5;
const CAPACITY = 4;

export default async function hostsBench(): Promise<void> {
  const waiting = await waitingAgent("hosts", TURNS, TURN_DELAY_MS);
  const { paths, agent, close } = waiting;
  const second = await startSecondDaemon();
  const here: PoolHost = { name: "here", endpoint: {}, capacity: CAPACITY };
  const there: PoolHost = { name: "there", endpoint: { host: second.host }, capacity: CAPACITY };
  console.log(
    `scripted model: ${TURNS} turns a trial, ${TURN_DELAY_MS} ms each; capacity ${CAPACITY} a host; ${cpus().length} CPUs, load ${loadavg()[0]?.toFixed(1)}\n`,
  );
  console.log("| hosts | concurrency | trials | wall | trials / min | per host | vs one host |");
  console.log("|---|---|---|---|---|---|---|");
  let base = 0;
  try {
    for (const hosts of [[here], [here, there]]) {
      const pool = new HostPoolProvider(hosts);
      const image = await pool.prepareImage(projectPaths(process.cwd()));
      // Loaded before the clock starts, as a first run on a new host would do once.
      if (hosts.length > 1) copyImage(image.ref, second.host);
      const sandbox = await openSandboxRunner({ paths, agents: [agent], provider: pool, verify: null });
      const concurrency = CAPACITY * hosts.length;
      const trials = concurrency * 2;
      const runId = `bench-hosts-${hosts.length}`;
      const { records, wallMs: wall } = await timedTrials(waiting, {
        runId,
        concurrency,
        trials,
        runner: sandbox.runner,
      }).finally(() => sandbox.close());
      const perHost = hosts.map(
        (h) => `${h.name} ${records.filter((r) => r.provenance?.host === h.name).length}`,
      );
      const perMinute = (trials / wall) * 60_000;
      if (hosts.length === 1) base = perMinute;
      console.log(
        `| ${hosts.length} | ${concurrency} | ${trials} | ${(wall / 1000).toFixed(1)} s | ${perMinute.toFixed(1)} | ${perHost.join(", ")} | ${(perMinute / base).toFixed(2)}x |`,
      );
    }
  } finally {
    await second.stop();
    await close();
  }
}
