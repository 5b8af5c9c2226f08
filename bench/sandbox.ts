// Sandbox benchmark: kgate's trial lifecycle and exec round trip through the Engine API against the
// docker CLI (`docker run --rm`, `docker exec`) measured in the same run, the disk cap's steps (pause
// against kill, a container with its tmpfs volume against one without), and trials per minute at
// concurrency 1, 2 and 4. Figures are medians (and p95) of interleaved rounds, reported as ratios.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import path from "node:path";
import type { Agent } from "../src/agents/types.ts";
import { projectPaths } from "../src/project.ts";
import { DockerClient } from "../src/sandbox/docker/client.ts";
import { DockerSandbox } from "../src/sandbox/docker/container.ts";
import { tmpfsVolumeOptions } from "../src/sandbox/docker/disk.ts";
import { ensureSandboxImage } from "../src/sandbox/docker/image.ts";
import { DockerProvider } from "../src/sandbox/docker/provider.ts";
import { SANDBOX_WORKDIR } from "../src/sandbox/index.ts";
import { collectOutputs } from "../src/sandbox/outputs.ts";
import { loadValidTask, scaffoldTask, sha256 } from "../src/task/index.ts";
import { agentInfoOf, runTrial, TrialEngine, type TrialRunner } from "../src/trial/index.ts";

const provider = new DockerProvider();

import { ZERO_USAGE } from "../src/record/index.ts";

const ROUNDS = Number(process.env.KGATE_BENCH_ROUNDS ?? 21);
const EXEC_ROUNDS = 50;
const TRIALS_PER_LEVEL = 12;
const LABELS = { kgate: "1", "kgate.run": `bench-${process.pid}` };
const LIMITS = { cpus: 1, memoryMb: 512, pids: 256 };

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}
const median = (values: number[]) => quantile(values, 0.5);
const ms = (v: number) => `${v.toFixed(1)} ms`;

async function time(fn: () => Promise<unknown> | unknown): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

function docker(args: string[]): void {
  const result = spawnSync("docker", args, { stdio: ["ignore", "ignore", "pipe"] });
  if (result.status !== 0) throw new Error(`docker ${args.join(" ")} failed: ${result.stderr}`);
}

/** 100 KB of environment: ten 10 KB files. */
const ENVIRONMENT = Array.from({ length: 10 }, (_, i) => ({
  path: `data/part-${i}.txt`,
  bytes: Buffer.from(`${i}`.repeat(10 * 1024)),
}));

/** The sandbox calls of a trial alone: create, copy in 100 KB, exec `true`, copy out 10 KB, remove. */
async function lifecycle(image: string): Promise<void> {
  const box = await DockerSandbox.create({ image, limits: LIMITS, labels: LABELS });
  try {
    await box.putFiles(SANDBOX_WORKDIR, ENVIRONMENT);
    if ((await box.exec(["true"])).exitCode !== 0) throw new Error("true failed");
    const [out] = await collectOutputs(box, [{ path: "data/part-0.txt", maxBytes: 1 << 20 }]);
    if (out?.record.status !== "collected") throw new Error(`copy out failed: ${out?.record.reason}`);
  } finally {
    await box.remove();
  }
}

/** The oracle-free agent of the benchmark: one exec of `true`. */
const trueAgent: Agent = {
  name: "true",
  harness: "bench",
  model: null,
  digest: sha256("bench-true"),
  async run(ctx) {
    await ctx.sandbox.exec(["true"]);
    return { stopReason: "finish", usage: ZERO_USAGE };
  },
};

/** A scaffolded task with the 100 KB environment, declaring one of its files as the output. */
function benchProject() {
  const root = mkdtempSync(path.join(tmpdir(), "kgate-bench-"));
  const paths = projectPaths(root);
  scaffoldTask(paths, { id: "bench", gate: "convention" });
  for (const f of ENVIRONMENT) {
    const file = path.join(paths.tasks, "bench", "environment", f.path);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, f.bytes);
  }
  const specFile = path.join(paths.tasks, "bench", "task.json");
  const spec = JSON.parse(readFileSync(specFile, "utf8"));
  spec.outputs = [{ path: "data/part-0.txt", format: "text" }];
  writeFileSync(specFile, JSON.stringify(spec));
  return { paths, root, task: loadValidTask(paths, "bench") };
}

async function lifecycleTable(image: string, project: ReturnType<typeof benchProject>): Promise<void> {
  let index = 0;
  const trial = async () => {
    const runId = "bench-lifecycle";
    const runDir = path.join(project.paths.runs, runId);
    const record = await runTrial({
      ...project,
      agent: trueAgent,
      condition: "+A",
      runId,
      runDir,
      index: index++,
      provider,
      image: { ref: image, id: null, base: null },
      verify: null,
    });
    if (record.error || record.outputs[0]?.status !== "collected") {
      throw new Error(`trial failed: ${JSON.stringify(record.error ?? record.outputs)}`);
    }
  };
  // Warm-up: the first container start and the first CLI call pay one-off costs.
  await trial();
  await lifecycle(image);
  docker(["run", "--rm", image, "true"]);
  const full: number[] = [];
  const api: number[] = [];
  const cli: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    full.push(await time(trial));
    api.push(await time(() => lifecycle(image)));
    cli.push(await time(() => docker(["run", "--rm", image, "true"])));
  }
  const row = (name: string, v: number[]) =>
    console.log(
      `| ${name} | ${ms(median(v))} | ${ms(quantile(v, 0.95))} | ${(median(v) / median(cli)).toFixed(2)}x |`,
    );
  console.log("| trial lifecycle | median | p95 | median vs docker run |");
  console.log("|---|---|---|---|");
  row("kgate runTrial: create, copy in 100 KB, exec true, copy out 10 KB, remove, record", full);
  row("kgate sandbox calls alone (same steps, no record)", api);
  row("baseline: docker run --rm <image> true (CLI)", cli);
  console.log("");
}

async function execTable(image: string): Promise<void> {
  const box = await DockerSandbox.create({ image, limits: LIMITS, labels: LABELS });
  const api: number[] = [];
  const cli: number[] = [];
  try {
    await box.exec(["true"]);
    docker(["exec", box.id, "true"]);
    for (let i = 0; i < EXEC_ROUNDS; i++) {
      api.push(await time(() => box.exec(["true"])));
      cli.push(await time(() => docker(["exec", box.id, "true"])));
    }
  } finally {
    await box.remove();
  }
  const ratio = (q: number) => `${(quantile(api, q) / quantile(cli, q)).toFixed(2)}x`;
  console.log("| exec round trip | median | p95 |");
  console.log("|---|---|---|");
  console.log(`| kgate exec (Engine API) | ${ms(median(api))} | ${ms(quantile(api, 0.95))} |`);
  console.log(`| baseline: docker exec <id> true (CLI) | ${ms(median(cli))} | ${ms(quantile(cli, 0.95))} |`);
  console.log(`| ratio kgate / docker exec | ${ratio(0.5)} | ${ratio(0.95)} |\n`);
}

function dockerOut(args: string[]): string {
  const result = spawnSync("docker", args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  if (result.status !== 0) throw new Error(`docker ${args.join(" ")} failed: ${result.stderr}`);
  return result.stdout.trim();
}

/**
 * The disk cap's own steps (issue 14 item 11), each against a same-run baseline: the stop by
 * `docker pause` against the `docker kill` it replaced (both CLI, on fresh running containers), and
 * a container created and removed (`rm -v`, Engine API) with the capped tmpfs volume it declares
 * against the same container without it.
 */
async function diskTable(image: string): Promise<void> {
  const client = new DockerClient();
  const label = Object.entries(LABELS).flatMap(([k, v]) => ["--label", `${k}=${v}`]);
  const running = () => dockerOut(["run", "-d", "--network", "none", ...label, image, "sleep", "300"]);
  const volume = { target: "/home/agent", labels: LABELS, options: tmpfsVolumeOptions(64, 1000, 1000) };
  const container = (volumes: Array<typeof volume>) => async () => {
    const id = await client.createContainer({
      image,
      cmd: ["true"],
      user: "1000:1000",
      workdir: SANDBOX_WORKDIR,
      env: {},
      labels: LABELS,
      network: false,
      memoryBytes: LIMITS.memoryMb * 1024 * 1024,
      nanoCpus: LIMITS.cpus * 1e9,
      pids: LIMITS.pids,
      readOnlyRoot: true,
      volumes,
      tmpfs: {},
    });
    await client.removeContainer(id);
  };
  const [withVolume, without] = [container([volume]), container([])];
  await withVolume();
  const pause: number[] = [];
  const kill: number[] = [];
  const volumes: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const [a, b] = [running(), running()];
    pause.push(await time(() => docker(["pause", a])));
    kill.push(await time(() => docker(["kill", b])));
    docker(["rm", "-f", a, b]);
    volumes.push(await time(withVolume));
    bare.push(await time(without));
  }
  const row = (name: string, v: number[], base: number[], baseName: string) =>
    console.log(
      `| ${name} | ${ms(median(v))} | ${ms(quantile(v, 0.95))} | ${(median(v) / median(base)).toFixed(2)}x ${baseName} |`,
    );
  console.log("| disk cap step | median | p95 | ratio |");
  console.log("|---|---|---|---|");
  row("stop: docker pause (CLI)", pause, kill, "of docker kill");
  row("baseline: docker kill (CLI)", kill, kill, "of docker kill");
  row("container create + rm -v with its tmpfs volume (Engine API)", volumes, bare, "of no volume");
  row("baseline: the same container without the volume", bare, bare, "of no volume");
  console.log("");
}

async function throughputTable(image: string, project: ReturnType<typeof benchProject>): Promise<void> {
  console.log("| concurrency | trials | wall | trials / min | vs concurrency 1 |");
  console.log("|---|---|---|---|---|");
  let base = 0;
  for (const concurrency of [1, 2, 4]) {
    const runId = `bench-c${concurrency}`;
    const runDir = path.join(project.paths.runs, runId);
    const runner: TrialRunner = (job, signal) =>
      runTrial({
        ...project,
        ...job,
        agent: trueAgent,
        provider,
        image: { ref: image, id: null, base: null },
        verify: null,
        signal,
      });
    const engine = new TrialEngine({ runId, runDir, runner, concurrency });
    const slots = Array.from({ length: TRIALS_PER_LEVEL }, (_, index) => ({
      task: project.task,
      condition: "+A" as const,
      agent: agentInfoOf(trueAgent),
      index,
    }));
    const wall = await time(() => engine.runAll(slots));
    const perMinute = (TRIALS_PER_LEVEL / wall) * 60_000;
    if (concurrency === 1) base = perMinute;
    const cells = [concurrency, TRIALS_PER_LEVEL, `${(wall / 1000).toFixed(1)} s`, perMinute.toFixed(0)];
    console.log(`| ${cells.join(" | ")} | ${(perMinute / base).toFixed(2)}x |`);
  }
}

export default async function sandboxBench(): Promise<void> {
  const image = await ensureSandboxImage(projectPaths(process.cwd()), {
    onProgress: (l) => process.stderr.write(`[image] ${l}\n`),
  });
  const load = loadavg()[0]?.toFixed(1);
  console.log(`image ${image}; ${ROUNDS} interleaved rounds; ${cpus().length} CPUs, load average ${load}\n`);
  const project = benchProject();
  try {
    await lifecycleTable(image, project);
    await execTable(image);
    await diskTable(image);
    await throughputTable(image, project);
  } finally {
    rmSync(project.root, { recursive: true, force: true });
  }
}
