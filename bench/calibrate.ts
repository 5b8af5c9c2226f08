// Benchmark: calibration bookkeeping with a zero-latency scripted model. 15 tasks x 4 cells x 5
// trials (300 trials, real sandboxes, host-side verification) at concurrency 2, run twice in fresh
// processes: by the calibration session (plan, pool, tally, progress, reports) and, as the same-run
// baseline, by a bare pool of runTrial calls with no calibration around them. Reports trials per
// minute, the share of slot time outside Docker and the model, and peak RSS (targets: < 10%, < 300 MB).
//   npm run bench calibrate      or      npx tsx bench/calibrate.ts [tasks]
import { spawn } from "node:child_process";
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { pathToFileURL } from "node:url";
import { resolveAgent } from "../src/agents/index.ts";
import { CalibrationConfig, calibrate, expandCells, sandboxBackend } from "../src/calibrate/index.ts";
import { projectPaths } from "../src/project.ts";
import type { TrialRecord } from "../src/record/index.ts";
import { ensureSandboxImage } from "../src/sandbox/docker/image.ts";
import { DockerProvider } from "../src/sandbox/docker/provider.ts";
import { listTaskIds, loadValidTask, scaffoldTask } from "../src/task/index.ts";
import { agentInfoOf, readTrialRecords, runTrial, TrialEngine } from "../src/trial/index.ts";
import { startModelServer } from "../test/support/model-server.ts";
import { scriptedPolicy } from "../test/support/scripted-model.ts";

const N = 5;
const CONCURRENCY = 2;

interface PhaseResult {
  phase: string;
  wallMs: number;
  cpuMs: number;
  maxRssMb: number;
  trials: number;
}

/** A project of `tasks` scaffolded tasks whose agents talk to the loopback model server. */
function setUp(root: string, tasks: number, anthropicUrl: string, openaiUrl: string): void {
  const paths = projectPaths(root);
  for (let i = 0; i < tasks; i++) {
    const id = `t${String(i + 1).padStart(2, "0")}`;
    scaffoldTask(paths, { id, gate: "convention" });
    appendFileSync(path.join(paths.tasks, id, "instruction.md"), `\n(batch: ${id})\n`);
  }
  const agent = (provider: string, model: string, baseUrl: string) => ({
    harness: "builtin",
    provider,
    model,
    baseUrl,
    apiKeyEnv: "KGATE_BENCH_KEY",
    pricing: { inputPerMTok: 3, outputPerMTok: 15 },
  });
  writeFileSync(
    paths.config,
    JSON.stringify({
      agents: {
        frontier: agent("anthropic", "frontier-model", anthropicUrl),
        mid: agent("openai", "mid-model", openaiUrl),
      },
      calibration: { n: N, concurrency: CONCURRENCY },
    }),
  );
}

class Sink extends Writable {
  override _write(_c: Buffer, _e: string, done: () => void) {
    done();
  }
}

/** What a child process runs: the calibration session, or the same trials through a bare pool. */
async function runPhase(phase: string, root: string): Promise<PhaseResult> {
  const paths = projectPaths(root);
  const started = performance.now();
  const cpu = process.cpuUsage();
  let trials = 0;
  if (phase === "calibrate") {
    const config = CalibrationConfig.parse({ n: N, concurrency: CONCURRENCY });
    const result = await calibrate(
      { paths, config, taskIds: [], runId: "calibrate", stderr: new Sink(), live: false },
      sandboxBackend({ paths }),
    );
    trials = result.engine.written.length;
  } else {
    // The same 300 trials with nothing of calibration around them: no plan, tally, progress or report.
    const provider = new DockerProvider();
    const image = await provider.prepareImage(paths);
    const agents = new Map([
      ["frontier", await resolveAgent(paths, "frontier")],
      ["mid", await resolveAgent(paths, "mid")],
    ]);
    const specs = CalibrationConfig.parse({}).cells;
    const jobs = listTaskIds(paths).flatMap((id) => {
      const task = loadValidTask(paths, id);
      return expandCells(task, specs).cells.flatMap((cell) =>
        Array.from({ length: N }, (_, index) => ({ task, cell, index })),
      );
    });
    const runDir = path.join(paths.runs, "bare");
    const engine = new TrialEngine({
      runId: "bare",
      runDir,
      concurrency: CONCURRENCY,
      runner: (job, signal) =>
        runTrial({ paths, ...job, agent: agents.get(job.agent.name)!, provider, image, signal }),
    });
    await engine.runAll(
      jobs.map((job) => ({
        task: job.task,
        condition: job.cell.condition,
        agent: agentInfoOf(agents.get(job.cell.agent)!),
        index: job.index,
      })),
    );
    trials = jobs.length;
  }
  const used = process.cpuUsage(cpu);
  return {
    phase,
    wallMs: performance.now() - started,
    cpuMs: (used.user + used.system) / 1000,
    maxRssMb: process.resourceUsage().maxRSS / 1024,
    trials,
  };
}

/** Runs a phase in a fresh process, so that its time and peak RSS are its own. */
function child(phase: string, root: string): Promise<PhaseResult> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ["--import", "tsx", import.meta.filename, "--phase", phase, root], {
      env: { ...process.env, KGATE_BENCH_KEY: "sk-bench" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    proc.stdout.on("data", (c: Buffer) => {
      out += c.toString();
    });
    proc.stderr.on("data", (c: Buffer) => {
      err += c.toString();
    });
    proc.on("close", (code) => {
      if (code !== 0) reject(new Error(`phase ${phase} failed (exit ${code}):\n${err.slice(-2000)}`));
      else resolve(JSON.parse(out.trim().split("\n").at(-1)!) as PhaseResult);
    });
  });
}

interface SlotShare {
  /** Container create, copy in, copy out, remove. */
  docker: number;
  /** The agent phase: model calls and tool executions in the container. */
  agent: number;
  verify: number;
  /** Everything else: the share of slot time outside Docker and the model. */
  outside: number;
}

/** How the slots' time (concurrency x wall) was spent, from the records' phase timings. */
function slotShare(records: TrialRecord[], wallMs: number): SlotShare {
  const sum = (names: string[]) =>
    records.reduce(
      (t, r) => t + names.reduce((s, n) => s + (r.phases[n as keyof typeof r.phases]?.durationMs ?? 0), 0),
      0,
    );
  const slots = CONCURRENCY * wallMs;
  const docker = sum(["create", "copyIn", "copyOut", "remove"]) / slots;
  const agent = sum(["agent"]) / slots;
  const verify = sum(["verify"]) / slots;
  return { docker, agent, verify, outside: 1 - docker - agent };
}

export default async function bench(tasks = 15): Promise<void> {
  const policy = scriptedPolicy({
    seed: 1,
    artefactPath: "docs/internal/specification.md",
    perturbedMarker: "Perturbed variant",
    output: {
      path: "output/result.csv",
      correct: "item,value\nwidget,3.36\ngadget,5.60\n",
      default: "item,value\nwidget,3.00\ngadget,5.00\n",
      perturbed: "item,value\nwidget,3.45\ngadget,5.75\n",
    },
    odds: {},
  });
  const server = await startModelServer(policy.script);
  const root = mkdtempSync(path.join(tmpdir(), "kgate-bench-calibrate-"));
  try {
    setUp(root, tasks, server.anthropicUrl, server.openaiUrl);
    await ensureSandboxImage(projectPaths(root));
    const bare = await child("bare", root);
    const session = await child("calibrate", root);
    const share = (run: string, wallMs: number) =>
      slotShare(readTrialRecords(path.join(root, "runs", run)).records, wallMs);
    const bareShare = share("bare", bare.wallMs);
    const sessionShare = share("calibrate", session.wallMs);
    const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
    const perMinute = (r: PhaseResult) => (r.trials / r.wallMs) * 60_000;
    const line = (label: string, r: PhaseResult, s: SlotShare) =>
      `${label.padEnd(34)} ${(r.wallMs / 1000).toFixed(1).padStart(6)} s  ${perMinute(r).toFixed(1).padStart(6)} trials/min` +
      `  docker ${pct(s.docker).padStart(6)}  agent+model ${pct(s.agent).padStart(6)}  verify ${pct(s.verify).padStart(5)}` +
      `  outside ${pct(s.outside).padStart(6)}  CPU ${(r.cpuMs / 1000).toFixed(1)} s  peak RSS ${r.maxRssMb.toFixed(0)} MB\n`;
    process.stdout.write(
      `calibration bookkeeping: ${tasks} tasks x 4 cells x ${N} trials = ${session.trials} trials, concurrency ${CONCURRENCY}, ` +
        "zero-latency scripted model (loopback), real sandboxes, verification on the host\n" +
        line("bare runTrial pool (baseline)", bare, bareShare) +
        line("kgate calibrate session", session, sessionShare) +
        `calibrate / baseline: wall ${(session.wallMs / bare.wallMs).toFixed(2)}x, CPU ${(session.cpuMs / bare.cpuMs).toFixed(2)}x ` +
        `(${((session.cpuMs - bare.cpuMs) / session.trials).toFixed(1)} ms CPU per trial for calibration; load average ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} CPUs); ` +
        `share of slot time outside Docker and the model: ${pct(sessionShare.outside)} (target < 10%), ` +
        `bare runner alone ${pct(bareShare.outside)}; peak RSS ${session.maxRssMb.toFixed(0)} MB (target < 300 MB)\n`,
    );
  } finally {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  }
}

const argv = process.argv;
if (argv[2] === "--phase") {
  process.stdout.write(`${JSON.stringify(await runPhase(argv[3]!, argv[4]!))}\n`);
} else if (import.meta.url === pathToFileURL(argv[1] ?? "").href) {
  await bench(Number(argv[2] ?? 15));
}
