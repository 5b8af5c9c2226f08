// Benchmark (one run): the export of the whole library as rows (every condition and variant, verl's
// Parquet, the ignorance-aware reward so that -A rows are in), then 10,000 replies scored by the
// generated Python module (one python3 process; the rubric task's replies through its one node
// process) and by kgate's own verification (verifyTrial on parseInlineReply's outputs, in this
// process): wall and CPU time per reply of each, and their ratio.
//   npm run bench rows      or      npx tsx bench/rows.ts
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { exportRows } from "../src/export/index.ts";
import { GroundTruth } from "../src/export/rows/ground-truth.ts";
import { projectPaths } from "../src/project.ts";
import { type LoadedTask, listTaskIds, loadValidTask, parseInlineReply } from "../src/task/index.ts";
import {
  type ConventionSet,
  loadVerifier,
  renderOutput,
  solveRaw,
  verifyTrial,
} from "../src/verify/index.ts";
import { CHOICE_REPLIES, corpus, replyWith } from "../test/support/reply-corpus.ts";

const REPLIES = 10_000;
const REPO = projectPaths(path.resolve(import.meta.dirname, ".."));

interface Timed<T> {
  value: T;
  wallMs: number;
  cpuMs: number;
}

async function timed<T>(run: () => Promise<T>): Promise<Timed<T>> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const value = await run();
  const used = process.cpuUsage(cpu);
  return { value, wallMs: performance.now() - started, cpuMs: (used.user + used.system) / 1000 };
}

/** Replies to one row: each convention set's answer and the mutations of the artefact's answer. */
async function repliesOf(
  task: LoadedTask,
  truth: string,
): Promise<Array<{ reply: string; ground_truth: string }>> {
  const loaded = await loadVerifier(task);
  const answers = (set: string) => {
    const solved = solveRaw(task, loaded, set as ConventionSet);
    return task.spec.outputs.map((o) => ({ path: o.path, text: renderOutput(o, solved[o.path], loaded) }));
  };
  const sets = [
    "artefact",
    "default",
    ...Object.keys(task.spec.artefact.variants).map((v) => `variant:${v}`),
  ];
  const replies = [
    ...sets.map((s) => replyWith(answers(s))),
    ...corpus(task.spec.outputs, answers("artefact")).map((c) => c.reply),
    ...CHOICE_REPLIES,
  ];
  return replies.map((reply) => ({ reply, ground_truth: truth }));
}

/** The Python module over every reply in one process: its wall and CPU time (children included). */
function python(dir: string, input: string): { wallMs: number; cpuMs: number; lines: number } {
  const started = performance.now();
  const run = spawnSync("/usr/bin/time", ["-f", "%U %S", "python3", path.join(dir, "kgate_reward.py")], {
    input,
    encoding: "utf8",
    maxBuffer: 1 << 30,
  });
  const wallMs = performance.now() - started;
  if (run.status !== 0) throw new Error(`python3 failed: ${run.stderr.slice(-2000)}`);
  const [user, system] = run.stderr.trim().split("\n").at(-1)!.split(" ").map(Number);
  return { wallMs, cpuMs: (user! + system!) * 1000, lines: run.stdout.trim().split("\n").length };
}

export default async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), "kgate-bench-rows-"));
  try {
    const ids = listTaskIds(REPO);
    const schedule = {
      direct: { correct: 1, wrong: 0 },
      withSpec: { correct: 0.5, wrong: 0.1 },
      decline: 0.25,
    };
    const exported = await timed(() =>
      exportRows(REPO, ids, {
        format: "verl",
        out: dir,
        reward: { scheme: "ignorance-aware", schedule },
        split: [],
        seed: 0,
        kgateVersion: "bench",
      }),
    );
    const { rows } = exported.value;
    process.stdout.write(
      `export of ${ids.length} tasks as ${rows} rows (+A, -A, each variant; verl Parquet, reward module, manifest): ` +
        `${(exported.wallMs / 1000).toFixed(2)} s wall, ${(exported.cpuMs / 1000).toFixed(2)} s CPU of this process, ${(exported.wallMs / rows).toFixed(1)} ms per row\n`,
    );

    const jsonl = mkdtempSync(path.join(tmpdir(), "kgate-bench-rows-jsonl-"));
    await exportRows(REPO, ids, {
      format: "jsonl",
      out: jsonl,
      reward: { scheme: "ignorance-aware", schedule },
      split: [],
      seed: 0,
      kgateVersion: "bench",
    });
    const truths = readFileSync(path.join(jsonl, "train.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l).reward_model.ground_truth as string);
    const pool: Array<{ reply: string; ground_truth: string }> = [];
    for (const truth of truths)
      pool.push(...(await repliesOf(loadValidTask(REPO, JSON.parse(truth).task), truth)));
    const items = Array.from({ length: REPLIES }, (_, i) => pool[(i * 7919) % pool.length]!);
    const share = items.filter((i) => JSON.parse(i.ground_truth).scorer === "node").length;
    const py = python(jsonl, items.map((i) => `${JSON.stringify(i)}\n`).join(""));
    rmSync(jsonl, { recursive: true, force: true });

    const tasks = new Map(ids.map((id) => [id, loadValidTask(REPO, id)]));
    const kgate = await timed(async () => {
      let passed = 0;
      for (const item of items) {
        const truth = GroundTruth.parse(JSON.parse(item.ground_truth));
        const task = tasks.get(truth.task)!;
        const verdict = await verifyTrial(
          task,
          parseInlineReply(task, item.reply),
          truth.reference as ConventionSet,
        );
        if (verdict.status === "pass") passed++;
      }
      return passed;
    });
    const per = (ms: number) => `${((ms / REPLIES) * 1000).toFixed(0)} µs`;
    process.stdout.write(
      `${REPLIES} replies (${pool.length} distinct over ${truths.length} rows; ${share} of them the rubric task's, scored through node), load average ${loadavg()[0]!.toFixed(1)}:\n` +
        `  Python module (one python3 process): ${per(py.wallMs)} wall, ${per(py.cpuMs)} CPU per reply (${py.lines} verdicts)\n` +
        `  kgate's verifyTrial (in process):     ${per(kgate.wallMs)} wall, ${per(kgate.cpuMs)} CPU per reply (${kgate.value} passed)\n` +
        `  ratio Python / kgate: ${(py.wallMs / kgate.wallMs).toFixed(2)}x wall, ${(py.cpuMs / kgate.cpuMs).toFixed(2)}x CPU\n`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
