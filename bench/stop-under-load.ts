// Benchmark (a stress run, not a timing): trials at concurrency 8 through the engine, as a calibration
// runs them, on a machine made busy on purpose (two CPU burners per core) and with agents that leave a
// fork storm running as they finish, so every stop phase freezes a cgroup that is forking: the case in
// which `docker pause` fails with "unable to freeze". Reports the trials lost to the stop phase (target:
// 0), the trials that passed, and the stop phase's durations.
//   npm run bench stop-under-load      or      npx tsx bench/stop-under-load.ts [trials]
import { type ChildProcess, spawn } from "node:child_process";
import { appendFileSync, mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { oracleAgent } from "../src/agents/index.ts";
import { projectPaths } from "../src/project.ts";
import type { TrialRecord } from "../src/record/index.ts";
import { DockerProvider } from "../src/sandbox/docker/provider.ts";
import { loadValidTask, scaffoldTask } from "../src/task/index.ts";
import { agentInfoOf, openSandboxRunner, TrialEngine } from "../src/trial/index.ts";

const CONCURRENCY = 8;

/** Busy loops, two per core, until killed. */
function burners(): ChildProcess[] {
  return Array.from({ length: availableParallelism() * 2 }, () =>
    spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" }),
  );
}

/** The stop phase's error of a record, if the trial was lost there. */
function lostToStop(r: TrialRecord): boolean {
  return r.phases.stop?.error !== undefined || /^stop: /.test(r.error?.message ?? "");
}

const percentile = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? 0;

export default async function bench(trials = 40): Promise<void> {
  const root = mkdtempSync(path.join(tmpdir(), "kgate-bench-stop-"));
  const paths = projectPaths(root);
  scaffoldTask(paths, { id: "storm", gate: "convention" });
  // The right output first, then two fork-and-exec loops left running (detached from the exec's streams).
  appendFileSync(
    path.join(paths.tasks, "storm", "solution", "solve.sh"),
    "\nfor j in 1 2; do (while :; do /bin/true; done) >/dev/null 2>&1 </dev/null & done\n",
  );
  const task = loadValidTask(paths, "storm");
  const agent = oracleAgent();
  const load = burners();
  const loadBefore = loadavg()[0]!;
  try {
    const runner = await openSandboxRunner({ paths, agents: [agent], provider: new DockerProvider() });
    const records: TrialRecord[] = [];
    try {
      const engine = new TrialEngine({
        runId: "stop-under-load",
        runDir: path.join(paths.runs, "stop-under-load"),
        runner: runner.runner,
        concurrency: CONCURRENCY,
        retries: 0,
        events: { finished: (_job, record) => records.push(record) },
      });
      const info = agentInfoOf(agent);
      await engine.runAll(
        Array.from({ length: trials }, (_, index) => ({
          task,
          condition: "+A" as const,
          agent: info,
          index,
        })),
      );
    } finally {
      await runner.close();
    }
    const stops = records.flatMap((r) => (r.phases.stop ? [r.phases.stop.durationMs] : []));
    const lost = records.filter(lostToStop);
    const passed = records.filter((r) => r.verdict.status === "pass").length;
    process.stdout.write(
      `${trials} trials at concurrency ${CONCURRENCY}, ${load.length} CPU burners on ${availableParallelism()} cores ` +
        `(load average ${loadBefore.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end)\n` +
        `lost to the stop phase: ${lost.length} (target 0)${lost.map((r) => `\n  ${r.index}: ${r.error?.message}`).join("")}\n` +
        `passed: ${passed} of ${records.length}; other errors: ${records.filter((r) => r.error && !lostToStop(r)).length}\n` +
        `stop phase: median ${percentile(stops, 50).toFixed(0)} ms, p95 ${percentile(stops, 95).toFixed(0)} ms, ` +
        `max ${Math.max(0, ...stops).toFixed(0)} ms\n`,
    );
  } finally {
    for (const b of load) b.kill("SIGKILL");
    rmSync(root, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await bench(Number(process.argv[2] ?? 40));
